"""Units of measure and currencies written after an amount, as text writes them: one table for
the fact reader (services.retrieval.facts) and for a question's quantities (tokens)."""

from __future__ import annotations

# Canonical unit for each surface form (normalised: lower case; Traditional forms are listed
# too, though text is folded to Simplified before it is read).
UNITS: dict[str, str] = {}
for canonical, forms in {
    "working_day": [
        "個工作天",
        "个工作天",
        "個工作日",
        "个工作日",
        "工作天",
        "工作日",
        "working days",
        "working day",
        "business days",
        "business day",
    ],
    "day": ["日", "天", "calendar days", "calendar day", "days", "day"],
    "hour": ["小時", "小时", "hours", "hour", "hrs", "hr", "h"],
    "minute": ["分鐘", "分钟", "minutes", "minute", "mins", "min"],
    "week": ["週", "周", "星期", "weeks", "week"],
    "month": ["個月", "个月", "months", "month"],
    "year": ["年", "years", "year"],
    "µm": ["µm", "μm", "um", "微米"],
    "mm": ["mm", "毫米", "millimetres", "millimetre", "millimeters", "millimeter"],
    "cm": ["cm", "公分", "厘米", "centimetres", "centimetre", "centimeters", "centimeter"],
    "m/min": ["m/min"],
    "km": ["公里", "千米", "km", "kilometres", "kilometre", "kilometers", "kilometer"],
    "m": ["公尺", "米", "m", "metres", "metre", "meters", "meter"],
    "l": ["公升", "升", "litres", "litre", "liters", "liter", "l"],
    "ml": ["毫升", "ml", "millilitres", "millilitre", "milliliters", "milliliter"],
    "kg": ["kg", "公斤", "千克", "kilograms", "kilogram", "kilos", "kilo", "kgs"],
    "g": ["公克", "g", "grams", "gram"],
    "t": ["噸", "吨", "tonnes", "tonne", "tons", "ton"],
    "°C": ["°c", "℃"],
    "%": ["%", "percent"],
    "lux·h": ["lux·h", "lx·h"],  # exposure, not illuminance
    "lux": ["lux", "lx", "勒克斯"],
    "cfu": ["cfu"],  # colony-forming units (a food plant's microbiology limits)
    "pcs": ["件", "片", "支", "pcs", "pieces", "piece"],
    # Currencies written after the amount (41.50 USD, 300 美元); prefixes are _CURRENCIES.
    # 元 alone is the yuan of the text's script (services.retrieval.facts.yuan: renminbi in
    # Simplified Chinese); listed here as a currency word.
    "TWD": ["元", "twd"],
    "USD": ["usd", "美元", "美金"],
    "EUR": ["eur", "euros", "euro", "歐元", "欧元"],
    "CNY": ["cny", "rmb", "人民幣", "人民币"],
    "GBP": ["gbp", "英鎊", "英镑"],
    "JPY": ["jpy", "日圓", "日元", "日圆"],
    "HKD": ["hkd", "港幣", "港币", "港元"],
    "SGD": ["sgd"],
    "AUD": ["aud"],
    "CAD": ["cad"],
    "CHF": ["chf"],
}.items():
    for form in forms:
        UNITS[form] = canonical


# What each unit measures, for a question asking for an amount in one (「幾公斤」, "how many
# litres"): any unit of the same measure answers it. Units of time, temperature, shares and money
# are asked for by answer types of their own (services.language.answer_types).
MEASURES: dict[str, str] = {
    "µm": "length",
    "mm": "length",
    "cm": "length",
    "m": "length",
    "km": "length",
    "kg": "mass",
    "g": "mass",
    "t": "mass",
    "l": "volume",
    "ml": "volume",
    "lux": "lux",
    "lux·h": "lux·h",
    "cfu": "cfu",
}

# Hours counted of work or of running, written with what is counted between the number and
# the unit ("3.5 labour hours", "250 engine hours", "8 man-hours"): a regular expression, read
# by the fact reader and the answer-type reader alike.
COUNTED_HOURS = r"(?:labou?r|man|engine|machine|operating|flight)[\s-]+(?=hours?\b|hrs?\b)"
