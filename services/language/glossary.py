"""Domain glossary: task field names (snake_case) ↔ search phrases in zh-Hant, zh-Hans and English.

Task states name their fields in snake_case (`lead_time`, `special_inspection`). Retrieval and
text matching need the words people write. This table is general quoting / manufacturing
vocabulary, not the wording of any one corpus; a field that is not listed still works through
`humanize` (``calibration_interval`` → "calibration interval").

Entry attributes:
- `kind`: ``flag`` for yes/no requirements a customer can confirm or decline (the supervisor
  may record that answer), ``choice`` for a customer's pick among named `options` (recorded when
  exactly one is named), ``value`` for things with a value the company's knowledge supplies,
  ``attribute`` for what identifies the job (material, quantity): they qualify searches and are
  checked for contradictions, but are not topics to look up on their own.
- `scope`: confirmed fields whose values narrow a search for this topic (lead time depends on
  the material; payment terms do not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from services.language.sentences import is_cjk, normalize


@dataclass(frozen=True)
class Term:
    key: str
    zh: tuple[str, ...]
    en: tuple[str, ...]
    kind: Literal["flag", "choice", "value", "attribute"] = "value"
    scope: tuple[str, ...] = ()
    hans: tuple[str, ...] = field(default=())
    units: tuple[str, ...] = field(default=())
    options: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())

    @property
    def phrases(self) -> tuple[str, ...]:
        return (*self.zh, *self.hans, *self.en)


_TERMS = (
    Term(
        "material",
        ("材質", "材料", "材料規格"),
        ("material", "grade", "alloy"),
        hans=("材质",),
        kind="attribute",
    ),
    Term(
        "quantity",
        ("數量", "件數", "需求量"),
        ("quantity", "qty", "pieces", "pcs"),
        hans=("数量", "件数"),
        kind="attribute",
        units=("件", "個", "个", "片", "支", "只", "套", "pcs", "pieces", "units"),
    ),
    Term(
        "part_number",
        ("料號", "品號", "零件編號"),
        ("part number", "p/n"),
        hans=("料号",),
        kind="attribute",
    ),
    Term(
        "drawing",
        ("圖號", "圖面", "圖紙"),
        ("drawing",),
        hans=("图号", "图纸", "图面"),
        kind="attribute",
    ),
    Term("customer_id", ("客戶", "客戶編號"), ("customer",), hans=("客户",), kind="attribute"),
    Term(
        "destination",
        ("目的地", "交貨地點", "送貨地點"),
        ("destination",),
        hans=("交货地点",),
        kind="attribute",
    ),
    Term(
        "plant",
        ("廠區", "工廠", "生產廠"),
        ("plant", "factory", "site"),
        hans=("厂区", "工厂"),
        kind="attribute",
    ),
    Term(
        "lead_time",
        ("交期", "標準交期", "交貨期"),
        ("lead time", "delivery time", "turnaround"),
        scope=("material",),
        hans=("交期", "标准交期", "交货期"),
    ),
    Term(
        "delivery_date",
        ("交貨日期", "出貨日期", "交貨日"),
        ("delivery date", "ship date"),
        hans=("交货日期", "出货日期"),
    ),
    Term(
        "special_inspection",
        ("特殊檢驗", "全檢", "第三方見證", "檢驗報告"),
        ("special inspection", "third-party witness", "inspection report"),
        kind="flag",
        hans=("特殊检验", "全检", "第三方见证", "检验报告"),
    ),
    Term(
        "surface_treatment",
        ("表面處理", "陽極", "電鍍", "鈍化", "拋光"),
        ("surface treatment", "anodizing", "plating", "passivation", "finish"),
        scope=("material",),
        hans=("表面处理", "阳极", "电镀", "钝化", "抛光"),
    ),
    Term(
        "heat_treatment",
        ("熱處理", "淬火", "回火", "硬度"),
        ("heat treatment", "hardening", "tempering", "hardness"),
        scope=("material",),
        hans=("热处理", "淬火", "回火", "硬度"),
    ),
    Term(
        "salt_spray_test",
        ("鹽霧試驗", "鹽霧測試", "耐蝕"),
        ("salt spray test", "corrosion test"),
        kind="flag",
        scope=("surface_treatment",),
        hans=("盐雾试验", "盐雾测试", "耐蚀"),
    ),
    Term(
        "shipping_mode",
        ("運輸方式", "海運", "空運", "出貨方式"),
        ("shipping mode", "sea freight", "air freight", "freight"),
        kind="choice",
        hans=("运输方式", "海运", "空运", "出货方式"),
        options=(
            ("sea", ("海運", "海运", "船運", "sea freight", "by sea", "ocean freight")),
            ("air", ("空運", "空运", "air freight", "by air", "air cargo")),
        ),
    ),
    Term(
        "packaging",
        ("包裝", "出口包裝", "裝箱"),
        ("packaging", "packing", "crate", "crating"),
        hans=("包装", "出口包装", "装箱"),
    ),
    Term(
        "payment_terms",
        ("付款條件", "付款", "月結"),
        ("payment terms", "payment"),
        hans=("付款条件", "付款", "月结"),
    ),
    Term(
        "unit_price",
        ("單價", "報價基準", "價格"),
        ("unit price", "price"),
        scope=("material",),
        hans=("单价", "报价基准", "价格"),
    ),
    Term(
        "rush_fee",
        ("急件", "急件費", "趕工費", "加價"),
        ("rush fee", "rush order", "expedite fee", "surcharge"),
        hans=("急件", "急件费", "赶工费", "加价"),
    ),
    Term(
        "calibration_interval",
        ("校正週期", "校正", "量具"),
        ("calibration interval", "calibration", "gauge"),
        hans=("校正周期", "校准周期", "量具"),
    ),
    Term(
        "tolerance",
        ("公差", "尺寸公差"),
        ("tolerance",),
        scope=("part_number",),
        hans=("公差", "尺寸公差"),
    ),
    Term("incoterms", ("貿易條件", "交貨條件"), ("incoterms", "incoterm"), hans=("贸易条件",)),
    Term("warranty", ("保固", "品質保證"), ("warranty", "guarantee"), hans=("保修", "质量保证")),
    Term(
        "film_thickness",
        ("膜厚", "膜層厚度"),
        ("film thickness", "coating thickness"),
        scope=("material",),
        hans=("膜厚", "膜层厚度"),
    ),
)

GLOSSARY: dict[str, Term] = {term.key: term for term in _TERMS}

# A pending item the workflow itself adds while engineering items await their approvals: it is
# settled by people deciding those items, never by a search.
ENGINEERING_PENDING = "engineering_confirmation"

# Words that mark work for engineering (used to find what engineering must confirm).
ENGINEERING_MARKERS = (
    "工程部",
    "工程確認",
    "工程师",
    "工程師",
    "工程部门",
    "工程确认",
    "engineering",
)


def humanize(key: str) -> str:
    return key.replace("_", " ").replace("-", " ").strip()


def term(key: str) -> Term:
    """The glossary entry, or one made from the field name itself."""
    known = GLOSSARY.get(key)
    if known is not None:
        return known
    return Term(key, (), (humanize(key),))


def label(key: str, *, chinese: bool) -> str:
    entry = term(key)
    if chinese and entry.zh:
        return entry.zh[0]
    return entry.en[0] if entry.en else humanize(key)


def search_phrase(key: str, *, chinese: bool | None = None) -> str:
    """The field in the words a document would use: the first phrase of each language, or of
    the task's language only (`chinese` True or False). A query in one language is answered by
    spans in that language word for word, and by spans in another through the embedding;
    mixing both would ask every span for words of a language it is not written in."""
    entry = term(key)
    parts = [entry.zh[0]] if entry.zh and chinese is not False else []
    parts += [entry.hans[0]] if entry.hans and chinese is not False else []
    if chinese is not True or not parts:
        parts += [entry.en[0]] if entry.en else [humanize(key)]
    return " ".join(dict.fromkeys(parts))


def chinese_forms(key: str) -> list[str]:
    """The field's first Traditional and Simplified phrases when they are different words, not
    one word in two scripts (保固 and 保修, 目的地 and 交貨地點): a document uses one of them, so
    each is searched on its own when both together find too little."""
    entry = term(key)
    if not (entry.zh and entry.hans):
        return []
    forms = [entry.zh[0], entry.hans[0]]
    return forms if len({normalize(f) for f in forms}) == 2 else []


def is_identifier(value: str) -> bool:
    """A spec or part number (SUS304, Ti-6Al-4V, PN-7731-B): letters and digits together."""
    text = value.strip()
    return (
        bool(text)
        and " " not in text
        and any(c.isdigit() for c in text)
        and any(c.isalpha() for c in text)
    )


def chosen_option(text: str, key: str) -> str | None:
    """The one option of a choice the text names, or None when it names none or several."""
    folded = normalize(text).lower()
    named = [
        option
        for option, phrases in term(key).options
        if any(phrase.lower() in folded for phrase in phrases)
    ]
    return named[0] if len(named) == 1 else None


def mentions(text: str, key: str) -> bool:
    folded = normalize(text).lower()
    return any(phrase.lower() in folded for phrase in term(key).phrases)


# English closed-class words that, right before a word, make it a verb: a request ("please",
# "to"), a modal or a subject pronoun ("can you finish", "we finish").
_ACT_BEFORE_TEXT = """
    please pls to can could will would shall should must may might let's lets i you we they he she
"""
_ACT_BEFORE = frozenset(_ACT_BEFORE_TEXT.split())
# ...and, after a word that opens its clause, its object: "finish the quote", "finish it".
_OBJECT_AFTER_TEXT = """
    it them this that these those the a an our your my his her their its up off
"""
_OBJECT_AFTER = frozenset(_OBJECT_AFTER_TEXT.split())
_LATIN_WORD = re.compile(r"[a-z][a-z'-]*")


def raises(text: str, key: str) -> bool:
    """Whether a person's text raises the topic: `mentions`, except through a one-word English
    phrase used as a verb ("please finish it", "can you finish the Chicago quote" ask for no
    surface finish), which English's own closed-class words around it show."""
    folded = normalize(text).lower()
    for phrase in term(key).phrases:
        wanted = phrase.lower()
        if wanted not in folded:
            continue
        if not _LATIN_WORD.fullmatch(wanted):
            return True
        for match in re.finditer(re.escape(wanted), folded):
            start, end = match.span()
            whole = not folded[start - 1 : start].isalpha() and not folded[end : end + 1].isalpha()
            if not whole or not _as_verb(folded[:start], folded[end:]):
                return True
    return False


def _as_verb(before: str, after: str) -> bool:
    previous = _LATIN_WORD.findall(before)
    if previous:
        return previous[-1] in _ACT_BEFORE
    following = _LATIN_WORD.findall(after)
    return bool(following) and following[0] in _OBJECT_AFTER


def topics_in(text: str) -> list[str]:
    """Glossary keys a text talks about, in glossary order."""
    return [
        key for key, entry in GLOSSARY.items() if entry.kind != "attribute" and mentions(text, key)
    ]


def prefers_chinese(*texts: str | None) -> bool:
    joined = " ".join(text for text in texts if text)
    return is_cjk(joined) if joined else True
