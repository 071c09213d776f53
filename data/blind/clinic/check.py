#!/usr/bin/env python3
"""Checker for the blind evaluation set clinic-desk@1 (clinic-corpus.json + clinic.golden.json).

    python3 check.py              validate both files; exit 0 when clean, 1 otherwise
    python3 check.py --self-test  apply mutations to in-memory copies; exit 0 only if every
                                  mutation is caught (and the unmutated data is clean)

Standard library only; `jsonschema` is used in addition when it can be imported.
The rules applied are written out in README.md ("Rules applied").
"""

import copy
import datetime
import json
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "..", "..", "schemas")
CORPUS_SCHEMA = "corpus-v1.schema.json"
GOLDEN_SCHEMA = "golden-v1.schema.json"
CORPUS_FILE = os.path.join(HERE, "clinic-corpus.json")
GOLDEN_FILE = os.path.join(HERE, "clinic.golden.json")

DATASET_ID = "clinic-desk@1"
AS_OF = "2026-11-20"

ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
SEES_ALL_CUSTOMERS = {"knowledge_owner", "admin"}
UNAPPROVED = {"draft", "pending_approval", "rejected"}
ID_LIMITS = {"tenant": 64, "user": 128, "document": 200, "task": 128, "customer": 128}

# ---------------------------------------------------------------------------------------------
# Hand-written expectations.
#
# Task evidence spans in the corpus: evidence id -> the exact text its offsets must slice.
EXPECTED_TASK_QUOTES = {
    "MAIL-BQ-1103@1:167-198": "我哋 12 月想安排 42 位同事做 Plan A，地點揀中環",
    "MAIL-OL-1116@1:166-260": "We have 6 new hires who need the Pre-employment Basic medical exam before they start on 1 Dec.",
    "MAIL-HK-PT-1012@1:144-171": "想喺旺角做，可唔可以直接 bill 保險？要俾幾多錢？",
    "HK-DIRECT-BILLING@1:90-133": "| Palmcrest Assure 棕嶺保險 | ✔ | ✘ | 只限普通科門診 |",
    "MAIL-HECHENG-1105@1:146-169": "请问家属能否按协议价格？如果可以，价格是多少？",
    "CHAT-SG-COUNTER-2026-11@1:78-131": "Aunty Koh ask how much for her helper's 6ME, FDW one.",
    "MAIL-BQ-1117@1:154-189": "我哋 12 位 M3 經理 11月16日 已經喺旺角做咗 Plan B",
    "BQ-HR-MEMO-2026@1:53-124": "Company-paid health check budget: up to HK$2,500 per employee per year.",
}

# Per case:
#   answers  {DOC@N: [quotes]}        ok / ready_for_review: every relevant version and the text in
#                                     it that answers the question
#   conflict {DOC@N: (quote, value)}  source_conflict: the disagreeing statements, normalised value
#   absent   [[s1, s2, ...], ...]     insufficient_evidence: no authoritative version the user may
#                                     cite (in the task's customer scope) contains all strings of a group
#   traps    {DOC@N: quote}           look-alike answers; each must be listed in `forbidden`
#   decoys   {DOC@N: quote}           near-misses the user may read (other clinic/region, history);
#                                     neither relevant nor forbidden
#   history_ok                        the question is about the past: a history version may answer
SPEC = {
    # ---------------------------------------------------------------- ok
    "hk-central-sat-hours": {
        "answers": {
            "HK-HOURS@2": ["| 中環診所（栢泉中心 12 樓） | 08:30–19:30 | 09:00–13:00 | 休息 |"],
            "NOTICE-HK-HOURS-0701@1": ["中環診所星期六應診時間改為 09:00–13:00"],
        },
        "traps": {
            "HK-HOURS@1": "| 中環診所（栢泉中心 12 樓） | 08:30–19:30 | 09:00–17:00 | 休息 |",
            "HK-HOURS@3": "建議由 2027 年 1 月 1 日起停診",
        },
        "decoys": {"CHAT-HK-FRONTDESK-2026-10@1": "有冇人知聖誕前後星期六係咪做到三點"},
    },
    "hk-boxing-day-mongkok": {
        "answers": {
            "HK-PH-2026XMAS@1": [
                "| 12月26日（六）聖誕節後第一個周日 | 休息 Closed | 10:00–14:00（只限預約 by appointment only） |"
            ]
        }
    },
    "hk-gp-fee-colloquial": {
        "answers": {"HK-FEES@2": ["| 普通科門診（包三日基本藥物） | 480 |"]},
        "traps": {
            "HK-FEES@1": "| 普通科門診（包兩日基本藥物） | 420 |",
            "HK-FEES@3": "| 普通科門診（包三日基本藥物） | 520 |",
        },
    },
    "hk-ecg-fee-english": {
        "answers": {"HK-FEES@2": ["| 心電圖 ECG（包報告） | 450 |"]},
        "traps": {
            "HK-FEES@1": "| 心電圖 ECG（包報告） | 400 |",
            "HK-FEES@3": "| 心電圖 ECG（包報告） | 480 |",
        },
        "decoys": {"SG-FEES@1": "| ECG with doctor's review | S$55 |"},
    },
    "hk-noshow-deposit": {
        "answers": {
            "HK-REFUND@2": ["未有出席（no-show）者，已繳付之訂金 HK$200 不設退還"],
            "HK-REFUND-EN@1": ["Deposits of HK$200 are forfeited for no-shows."],
        },
        "traps": {"HK-REFUND@1": "未有出席者，訂金 HK$150 不設退還"},
    },
    "bq-plan-a-price": {
        "answers": {
            "CT-BRIGHTQUAY@2": [
                "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |"
            ],
            "CT-BRIGHTQUAY-SCHED@1": ["| Plan A (Basic) | HK$1,280 |"],
        },
        "traps": {
            "CT-BRIGHTQUAY@1": "| Plan A 基本計劃 | 1,180 |",
            "BQ-CONTRACT-COPY@1": "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |",
            "BQ-BENEFITS-GUIDE@1": "| Plan A | HK$1,280 |",
        },
    },
    "hk-flu-observation": {
        "answers": {"HK-VAX-SOP@2": ["接種者須留在診所觀察最少 15 分鐘"]},
        "traps": {"HK-VAX-SOP@1": "接種者須留在診所觀察最少 30 分鐘"},
    },
    "sz-futian-sunday": {
        "answers": {
            "SZ-HOURS@1": [
                "| 福田门诊部（Futian） | 08:30–20:00（19:30 停止挂号） | 09:00–17:00 | 休息 |"
            ]
        }
    },
    "sz-hpv9-package": {
        "answers": {"SZ-FEES@2": ["| 九价 HPV 疫苗 三针套餐（一次性付款） | ¥3,980 |"]},
        "traps": {"SZ-FEES@1": "| 九价 HPV 疫苗 三针套餐（一次性付款） | ¥3,880 |"},
    },
    "hecheng-report-days": {
        "answers": {
            "CT-HECHENG-2026@1": [
                "体检完成后 5 个工作日内出具电子报告，发送至乙方人力资源部指定邮箱"
            ]
        }
    },
    "sg-toapayoh-sunday-singlish": {
        "answers": {"SG-HOURS@2": ["| Toa Payoh | 8:30am–9:00pm | 8:30am–1:00pm | Closed |"]},
        "traps": {"SG-HOURS@1": "| Toa Payoh | 8:30am–9:00pm | 8:30am–1:00pm | 9:00am–12:00pm |"},
    },
    "sg-travel-consult-fee": {
        "answers": {
            "SG-FEES@1": [
                "| Travel health consultation (incl. itinerary review) | S$60 |",
                "Applies to the Tanjong Pagar and Toa Payoh clinics.",
            ]
        },
        "traps": {"SG-FEES@2": "| Travel health consultation (incl. itinerary review) | S$65 |"},
    },
    "orchid-panel-copay": {
        "answers": {
            "CT-ORCHIDLANE-2026@1": ["Employees pay a co-payment of S$5 per visit at the counter"],
            "CT-ORCHIDLANE-RATECARD@1": ["| Panel GP co-payment (employee pays) | S$5 per visit |"],
        },
        "traps": {"CT-ORCHIDLANE-FLU-2025@1": "Rate: S$32 per pax"},
    },
    "sg-tanjongpagar-sat-zh": {
        "answers": {"SG-HOURS@2": ["| Tanjong Pagar | 8:00am–6:00pm | 8:30am–12:30pm | Closed |"]},
        "traps": {"SG-HOURS@1": "| Tanjong Pagar | 8:00am–6:00pm | 8:30am–12:30pm | Closed |"},
    },
    "sz-futian-lastreg-en": {
        "answers": {"SZ-HOURS@1": ["| 福田门诊部（Futian） | 08:30–20:00（19:30 停止挂号） |"]}
    },
    "hk-haemolysed-nurse": {
        "answers": {
            "HK-SPECIMEN-QC@1": [
                "輕微溶血（肉眼淡紅色）：可送化驗，但須於申請表註明「輕微溶血」",
                "一律拒收並安排重抽",
            ]
        }
    },
    "hk-sick-leave-cert": {
        "answers": {"HK-HANDBOOK@4": ["連續病假 2 天或以上，須提交註冊醫生發出之病假證明書"]},
        "traps": {"HK-HANDBOOK@3": "連續病假 3 天或以上"},
    },
    "sz-package-refund": {
        "answers": {
            "SZ-REFUND@1": [
                "客户须在预约日前 2 个工作日取消，可全额退款",
                "少于 2 个工作日取消的，收取套餐价格 20% 手续费",
            ]
        },
        "traps": {"SZ-REFUND@2": "体检套餐一经预约，概不退款"},
    },
    "bq-tenant2-plan-b": {
        "answers": {
            "BQ-CONTRACT-COPY@1": [
                "| Plan B 全面計劃 | Plan A 全部項目，另加胸肺 X 光、腹部超聲波、甲狀腺功能、腫瘤指標（AFP、CEA） | 2,380 |"
            ],
            "BQ-BENEFITS-GUIDE@1": ["| Plan B | HK$2,380 |"],
        },
        "traps": {
            "CT-BRIGHTQUAY@2": "| Plan B 全面計劃 | Plan A 全部項目，另加胸肺 X 光、腹部超聲波、甲狀腺功能、腫瘤指標（AFP、CEA） | 2,380 |",
            "CT-BRIGHTQUAY-SCHED@1": "| Plan B (Comprehensive) | HK$2,380 |",
        },
    },
    "hk-minutes-flu-cap": {
        "history_ok": True,
        "answers": {
            "MIN-HK-OPS-2026-09@1": [
                "決定：每間診所每日流感疫苗預約上限 60 個，walk-in 另設 20 個名額"
            ]
        },
    },
    "finance-bluewharf-settlement": {
        "answers": {
            "HK-DB-SETTLEMENT@1": ["Bluewharf Insurance：每月 8 號對數，確認後 30 日內過數"]
        }
    },
    "km-orchid-termination": {
        "answers": {
            "CT-ORCHIDLANE-2026@1": [
                "Either party may terminate this Agreement with 60 days' written notice."
            ]
        }
    },
    # ---------------------------------------------------------------- insufficient_evidence
    "bq-price-no-grant": {
        "absent": [["1,280"], ["Plan A"]],
        "traps": {
            "CT-BRIGHTQUAY@2": "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |",
            "CT-BRIGHTQUAY-SCHED@1": "| Plan A (Basic) | HK$1,280 |",
            "BQ-CONTRACT-COPY@1": "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |",
        },
    },
    "bq-budget-other-tenant": {
        "absent": [["2,500"], ["budget"]],
        "traps": {
            "BQ-HR-MEMO-2026@1": "Company-paid health check budget: up to HK$2,500 per employee per year."
        },
    },
    "tenant2-asks-clinic-fee": {
        "absent": [["普通科門診"], ["480"]],
        "traps": {"HK-FEES@2": "| 普通科門診（包三日基本藥物） | 480 |"},
    },
    "hk-physio-draft": {
        "absent": [["物理治療"], ["physio"], ["Physio"]],
        "traps": {"HK-PHYSIO-FEES@1": "| 物理治療（覆診，每節 30 分鐘） | 650 |"},
    },
    "sg-fdw-6me-pending": {
        "absent": [["6ME"], ["FDW"], ["domestic worker"]],
        "traps": {"SG-FEES@2": "| FDW six-monthly medical examination (6ME) | S$65 |"},
        "decoys": {
            "CHAT-SG-COUNTER-2026-11@1": "New price list got FDW S$65 but still pending approval leh"
        },
    },
    "hk-senior-flu-revoked": {
        "absent": [["半價"], ["149"], ["長者", "優惠"]],
        "traps": {"HK-PROMO-SENIOR-FLU@1": "可享半價優惠，每針 HK$149"},
    },
    "sg-novena-superseded": {
        "absent": [["Novena"]],
        "traps": {"SG-HOURS@1": "| Novena | 9:00am–6:00pm | 9:00am–1:00pm | Closed |"},
    },
    "orchid-onsite-flu-expired": {
        "absent": [["Orchidlane", "flu"], ["Orchidlane", "influenza"], ["onsite"]],
        "traps": {"CT-ORCHIDLANE-FLU-2025@1": "Rate: S$32 per pax, minimum 50 pax per session"},
    },
    "hk-fee-2027-scheduled": {
        "absent": [["2027", "普通科門診"], ["普通科門診（包三日基本藥物） | 520"]],
        "traps": {"HK-FEES@3": "| 普通科門診（包三日基本藥物） | 520 |"},
    },
    "hk-waittime-inference": {
        "absent": [["候診"]],
        "traps": {"INF-HK-WAITTIME@1": "星期一上午 09:00–12:00 平均候診約 45 分鐘"},
    },
    "hk-tsuen-wan-nonexistent": {"absent": [["荃灣"], ["Tsuen Wan"]]},
    "sz-cny-2027-near-year": {
        "absent": [["春节"], ["2027年2月"], ["2027年春"]],
        "traps": {"SZ-PH-2026-CNY@1": "| 福田门诊部 | 2月16日（除夕）至2月20日 | 2月21日 |"},
        "decoys": {"SZ-HOURS@1": "法定节假日安排另行通知。"},
    },
    "hk-hpv-near-miss-region": {
        "absent": [["HPV", "中環"], ["HPV", "港幣"]],
        "decoys": {"SZ-FEES@2": "| 九价 HPV 疫苗（每针） | ¥1,380 |"},
    },
    "hk-settlement-user-acl": {
        "absent": [["對數"], ["過數"]],
        "traps": {"HK-DB-SETTLEMENT@1": "Bluewharf Insurance：每月 8 號對數，確認後 30 日內過數"},
    },
    "hk-haemolysed-desk": {
        "absent": [["溶血"]],
        "traps": {"HK-SPECIMEN-QC@1": "一律拒收並安排重抽"},
        "decoys": {"HK-SPECIMEN-SOP@1": "由護士按內部質量準則處理"},
    },
    "hk-parking-unstated": {"absent": [["泊車"], ["停車"], ["parking"], ["Parking"]]},
    "orchid-executive-history-only": {
        "absent": [["Executive"]],
        "decoys": {
            "QT-ORCHIDLANE-2024@1": "| Executive (incl. treadmill ECG and ultrasound abdomen) | S$520 |"
        },
    },
    # ---------------------------------------------------------------- source_conflict
    "hk-refund-notice-days": {
        "conflict": {
            "HK-REFUND@2": ("客人須於預約日 3 個工作天前通知取消，可獲全數退款", "3 working days"),
            "HK-REFUND-EN@1": (
                "A full refund is given if the client cancels at least 5 working days before the appointment date.",
                "5 working days",
            ),
        },
        "traps": {"HK-REFUND@1": "客人須於預約日 2 個工作天前通知取消"},
    },
    "hk-refund-processing-en": {
        "conflict": {
            "HK-REFUND@2": (
                "退款經主管批核後，於 14 個工作天內以原付款方式退回",
                "14 working days",
            ),
            "HK-REFUND-EN@1": (
                "Approved refunds are returned to the original payment method within 21 working days.",
                "21 working days",
            ),
        },
        "traps": {"HK-REFUND@1": "退款於 30 日內處理"},
    },
    "hk-evermount-mongkok": {
        "conflict": {
            "HK-DIRECT-BILLING@2": (
                "| Evermount Health 恒峰健康保險 | ✔ | ✔ | 普通科門診 |",
                "available at Mong Kok",
            ),
            "NOTICE-EVERMOUNT-MK@1": (
                "由 2026年10月1日起，旺角診所將暫停為 Evermount Health 恒峰健康保險會員提供直接結算服務",
                "suspended at Mong Kok",
            ),
        },
        "traps": {"HK-DIRECT-BILLING@1": "| Evermount Health 恒峰健康保險 | ✔ | ✔ | 普通科門診 |"},
        "decoys": {
            "CHAT-HK-FRONTDESK-2026-10@1": "Evermount 嘅客下個月開始去旺角唔可以 direct billing"
        },
    },
    "bq-spouse-discount": {
        "conflict": {
            "CT-BRIGHTQUAY@2": ("| 配偶 add-on | 與員工同一計劃 | 員工價九折 |", "10% off"),
            "CT-BRIGHTQUAY-SCHED@1": (
                "| Spouse add-on (same plan as the employee) | 15% off the employee rate |",
                "15% off",
            ),
        },
        "traps": {"CT-BRIGHTQUAY@1": "| 配偶 add-on | 員工價 |"},
    },
    "sz-consult-fee": {
        "conflict": {
            "SZ-FEES@2": ("| 普通门诊诊金 | ¥380 |", "CNY 380"),
            "SZ-PRICE-NOTICE@1": ("| 普通门诊诊金 | 次 | 350 |", "CNY 350"),
        },
        "traps": {"SZ-FEES@1": "| 普通门诊诊金 | ¥320 |"},
    },
    "hecheng-package-a-price": {
        "conflict": {
            "CT-HECHENG-2026@1": ("| 入职体检套餐（A） | 新入职员工 | ¥680/人 |", "CNY 680"),
            "OR-HECHENG-2026-PO@1": (
                "| 1 | 入职体检套餐（A） | 35 人 | ¥720 | ¥25,200 |",
                "CNY 720",
            ),
        },
        "traps": {"INF-HECHENG-FAMILY@1": "参考入职体检套餐（A）¥680"},
    },
    "orchid-essential-price": {
        "conflict": {
            "CT-ORCHIDLANE-2026@1": ("Essential screening package: S$268 per employee.", "SGD 268"),
            "CT-ORCHIDLANE-RATECARD@1": (
                "| Essential screening package | S$286 per employee |",
                "SGD 286",
            ),
        },
        "decoys": {"QT-ORCHIDLANE-2024@1": "| Essential | S$248 |"},
    },
    "sg-last-courier-singlish": {
        "conflict": {
            "SG-SPECIMEN-SOP@1": ("| Tanjong Pagar | 11:30am | 4:30pm |", "16:30"),
            "SG-LAB-COURIER-NOTICE@1": (
                "Tanjong Pagar: first pickup 11:30am, last pickup 4:00pm",
                "16:00",
            ),
        }
    },
    "hk-fridge-log-frequency": {
        "conflict": {
            "HK-VAX-SOP@2": ("當值護士須每日兩次（09:00 及 17:00）記錄雪櫃溫度", "2 per day"),
            "HK-COLDCHAIN-CHECKLIST@1": ("每日三次記錄：09:00、13:00、17:00", "3 per day"),
        },
        "traps": {"HK-VAX-SOP@1": "當值護士每日 09:00 記錄一次"},
    },
    # ---------------------------------------------------------------- tasks
    "task-bq-plan-a-december": {
        "answers": {
            "CT-BRIGHTQUAY@2": [
                "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |"
            ],
            "CT-BRIGHTQUAY-SCHED@1": ["| Plan A (Basic) | HK$1,280 |"],
        },
        "traps": {
            "CT-BRIGHTQUAY@1": "| Plan A 基本計劃 | 1,180 |",
            "BQ-CONTRACT-COPY@1": "| Plan A 基本計劃 | 醫生檢查、血常規、肝腎功能、血糖、血脂、小便常規、心電圖 | 1,280 |",
        },
    },
    "task-orchid-pre-employment": {
        "answers": {
            "CT-ORCHIDLANE-2026@1": [
                "Pre-employment Basic medical exam (doctor's examination, chest X-ray, urine test and fasting blood glucose): S$98 per candidate"
            ],
            "CT-ORCHIDLANE-RATECARD@1": [
                "| Pre-employment Basic medical exam | S$98 per candidate |"
            ],
            "SG-SPECIMEN-SOP@1": [
                "Fasting: patients fast 8–10 hours before fasting blood tests; plain water is allowed."
            ],
        },
        "traps": {
            "CT-HECHENG-2026@1": "| 入职体检套餐（A） | 新入职员工 | ¥680/人 |",
            "CT-ORCHIDLANE-FLU-2025@1": "Rate: S$32 per pax",
        },
        "decoys": {
            "SG-FEES@1": "| Pre-employment medical exam — walk-in / non-corporate | S$120 |"
        },
    },
    "task-hk-palmcrest-ecg": {
        "answers": {
            "HK-DIRECT-BILLING@2": [
                "| Palmcrest Assure 棕嶺保險 | ✔ | ✔ | 普通科門診、心電圖 ECG 及基本化驗（須有本集團醫生轉介） |"
            ],
            "HK-FEES@2": ["| 心電圖 ECG（包報告） | 450 |"],
        },
        "traps": {
            "HK-DIRECT-BILLING@1": "| Palmcrest Assure 棕嶺保險 | ✔ | ✘ | 只限普通科門診 |",
            "HK-FEES@3": "| 心電圖 ECG（包報告） | 480 |",
            "HK-FEES@1": "| 心電圖 ECG（包報告） | 400 |",
        },
    },
    "task-hecheng-family-price": {
        "absent": [["家属"], ["父母"], ["配偶", "體檢"], ["配偶", "体检"]],
        "traps": {
            "INF-HECHENG-FAMILY@1": "建议员工家属按九折 ¥612/人 报价",
            "CT-BRIGHTQUAY@2": "| 配偶 add-on | 與員工同一計劃 | 員工價九折 |",
        },
        "decoys": {
            "SZ-FEES@2": "| 个人入职体检 | ¥498 |",
            "HK-HANDBOOK@4": "員工直系家屬（配偶及子女）普通科門診收費 5 折",
        },
    },
    "task-sg-fdw-6me": {
        "absent": [["6ME"], ["FDW"], ["domestic worker"]],
        "traps": {"SG-FEES@2": "| FDW six-monthly medical examination (6ME) | S$65 |"},
        "decoys": {
            "CHAT-SG-COUNTER-2026-11@1": "New price list got FDW S$65 but still pending approval leh"
        },
    },
    "task-bq-plan-b-report-date": {
        "conflict": {
            "CT-BRIGHTQUAY@2": (
                "體檢報告於檢查完成後 7 個工作天內以加密電郵發送予參加者本人",
                "7 working days",
            ),
            "CT-BRIGHTQUAY-SCHED@1": (
                "individual reports are released within 10 working days after the screening",
                "10 working days",
            ),
        },
        "traps": {
            "CT-BRIGHTQUAY@1": "體檢報告於檢查完成後 5 個工作天內發送予參加者本人",
            "BQ-CONTRACT-COPY@1": "體檢報告於檢查完成後 7 個工作天內以加密電郵發送予參加者本人",
        },
    },
}


# ---------------------------------------------------------------------------------------------
# Minimal JSON Schema validator (the subset the two exported schemas use).
def _is_date(s):
    try:
        return isinstance(s, str) and len(s) == 10 and datetime.date.fromisoformat(s) is not None
    except ValueError:
        return False


def _is_datetime(s):
    if not isinstance(s, str) or not re.match(
        r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$", s
    ):
        return False
    try:
        datetime.datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
        return True
    except ValueError:
        return False


def _type_ok(value, t):
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "null":
        return value is None
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    return False


def mini_validate(value, schema, root, path="$"):
    errs = []
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/")
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        errs += mini_validate(value, target, root, path)
    if "anyOf" in schema:
        if not any(not mini_validate(value, s, root, path) for s in schema["anyOf"]):
            errs.append(f"{path}: matches none of anyOf")
    if "oneOf" in schema:
        n = sum(1 for s in schema["oneOf"] if not mini_validate(value, s, root, path))
        if n != 1:
            errs.append(f"{path}: matches {n} of oneOf (need exactly 1)")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            return errs + [f"{path}: expected {schema['type']}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        errs.append(f"{path}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errs.append(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(f"{path}: longer than {schema['maxLength']}")
        fmt = schema.get("format")
        if fmt == "date" and not _is_date(value):
            errs.append(f"{path}: not a date: {value!r}")
        if fmt == "date-time" and not _is_datetime(value):
            errs.append(f"{path}: not a date-time: {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errs.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errs.append(f"{path}: above {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errs.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                errs += mini_validate(item, schema["items"], root, f"{path}[{i}]")
    if isinstance(value, dict):
        for req in schema.get("required", []):
            if req not in value:
                errs.append(f"{path}: missing required {req!r}")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                errs += mini_validate(v, props[k], root, f"{path}.{k}")
            else:
                ap = schema.get("additionalProperties", True)
                if ap is False:
                    errs.append(f"{path}: unexpected key {k!r}")
                elif isinstance(ap, dict):
                    errs += mini_validate(v, ap, root, f"{path}.{k}")
    return errs


def load_schema(name):
    p = os.path.join(SCHEMA_DIR, name)
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def schema_errors(obj, schema, label):
    errs = [f"{label} schema: {e}" for e in mini_validate(obj, schema, schema)]
    try:
        import jsonschema  # optional
    except ImportError:
        return errs
    try:
        cls = jsonschema.validators.validator_for(schema)
        v = cls(schema, format_checker=getattr(cls, "FORMAT_CHECKER", None))
        for e in v.iter_errors(obj):
            errs.append(
                f"{label} schema (jsonschema): {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            )
    except Exception as exc:  # a broken optional dependency must not hide the mini validator
        errs.append(f"{label} schema: jsonschema failed: {exc}")
    return errs


# ---------------------------------------------------------------------------------------------
# Domain rules
def valid_id(s, kind):
    if not isinstance(s, str) or not s or len(s) > ID_LIMITS[kind]:
        return False
    if unicodedata.normalize("NFC", s) != s:
        return False
    if unicodedata.category(s[0])[0] not in "LN":
        return False
    for ch in s:
        cat = unicodedata.category(ch)
        if cat[0] in "LMN" or ch in "-_.":
            continue
        return False
    return True


def parse_ref(ref):
    """'DOC@N' -> (DOC, N); 'DOC' -> (DOC, None); None when malformed."""
    if not isinstance(ref, str):
        return None
    m = re.fullmatch(r"([^@:/#\s]+)(?:@(\d+))?", ref)
    if not m:
        return None
    return m.group(1), (int(m.group(2)) if m.group(2) else None)


def parse_evidence(eid):
    m = re.fullmatch(r"([^@:/#\s]+)@(\d+):(\d+)-(\d+)", eid or "")
    if not m:
        return None
    return m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))


def d(s):
    return datetime.date.fromisoformat(s)


def valid_on(doc, day):
    if d(doc["valid_from"]) > day:
        return False
    return doc.get("valid_to") is None or day < d(doc["valid_to"])


def acl_match(doc, user):
    for e in doc["acl"]:
        if e == "tenant":
            return True
        if e.startswith("role:") and e[5:] in user.get("roles", []):
            return True
        if e.startswith("user:") and e[5:] == user["user_id"]:
            return True
        if e.startswith("customer:") and e in user.get("grants", []):
            return True
    return False


def usable(doc, user, day):
    """May back a claim: same tenant, approved, valid on `day`, ACL-readable, not an inference."""
    return (
        doc["tenant_id"] == user["tenant_id"]
        and doc["status"] == "approved"
        and valid_on(doc, day)
        and acl_match(doc, user)
        and doc["knowledge_class"] != "inference"
    )


def in_scope(doc, task_customer):
    return task_customer is None or doc.get("customer_id") in (None, task_customer)


def task_visible(task, user):
    if task["tenant_id"] != user["tenant_id"]:
        return False
    cust = (task.get("confirmed") or {}).get("customer_id")
    if not cust:
        return True
    return f"customer:{cust}" in user.get("grants", []) or bool(
        SEES_ALL_CUSTOMERS & set(user.get("roles", []))
    )


def check_corpus(c, errs, quotes=None):
    quotes = EXPECTED_TASK_QUOTES if quotes is None else quotes
    tenants, users, docs, tasks = {}, {}, {}, {}
    for i, t in enumerate(c.get("tenants", [])):
        tid = t.get("tenant_id")
        if tid in tenants:
            errs.append(f"tenants[{i}]: duplicate tenant_id {tid}")
        if not valid_id(tid, "tenant"):
            errs.append(f"tenants[{i}]: bad tenant_id {tid!r}")
        tenants[tid] = t
    for i, u in enumerate(c.get("users", [])):
        uid = u.get("user_id")
        if uid in users:
            errs.append(f"users[{i}]: duplicate user_id {uid}")
        if not valid_id(uid, "user"):
            errs.append(f"users[{i}]: bad user_id {uid!r}")
        if u.get("tenant_id") not in tenants:
            errs.append(f"users[{i}] ({uid}): unknown tenant {u.get('tenant_id')}")
        for r in u.get("roles", []):
            if r not in ROLES:
                errs.append(f"users[{i}] ({uid}): unknown role {r!r}")
        for g in u.get("grants", []):
            if not (
                isinstance(g, str) and g.startswith("customer:") and valid_id(g[9:], "customer")
            ):
                errs.append(f"users[{i}] ({uid}): bad grant {g!r}")
        users[uid] = u
    for i, doc in enumerate(c.get("documents", [])):
        key = (doc.get("document_id"), doc.get("version"))
        label = f"documents[{i}] ({key[0]}@{key[1]})"
        if key in docs:
            errs.append(f"{label}: duplicate (document_id, version)")
        docs[key] = doc
        if not valid_id(doc.get("document_id"), "document"):
            errs.append(f"{label}: bad document_id")
        if doc.get("tenant_id") not in tenants:
            errs.append(f"{label}: unknown tenant {doc.get('tenant_id')}")
        if doc.get("customer_id") is not None and not valid_id(doc["customer_id"], "customer"):
            errs.append(f"{label}: bad customer_id")
        try:
            if doc.get("valid_to") is not None and d(doc["valid_to"]) <= d(doc["valid_from"]):
                errs.append(f"{label}: valid_to must be after valid_from")
        except (TypeError, ValueError):
            errs.append(f"{label}: bad validity dates")
        acl = doc.get("acl") or []
        if not acl:
            errs.append(f"{label}: empty ACL")
        for e in acl:
            ok = e == "tenant" or (
                isinstance(e, str)
                and (
                    (e.startswith("role:") and e[5:] in ROLES)
                    or (
                        e.startswith("user:")
                        and e[5:] in users
                        and users[e[5:]]["tenant_id"] == doc.get("tenant_id")
                    )
                    or (e.startswith("customer:") and valid_id(e[9:], "customer"))
                )
            )
            if not ok:
                errs.append(f"{label}: bad ACL entry {e!r}")
        ab = doc.get("approved_by")
        if doc.get("status") in UNAPPROVED:
            if ab is not None:
                errs.append(f"{label}: approved_by must be null for status {doc.get('status')}")
        else:
            if ab not in users or users[ab]["tenant_id"] != doc.get("tenant_id"):
                errs.append(
                    f"{label}: approved_by {ab!r} is not a user of tenant {doc.get('tenant_id')}"
                )
        if doc.get("knowledge_class") == "inference" and doc.get("status") not in UNAPPROVED:
            errs.append(f"{label}: an inference is kept as a draft, never {doc.get('status')}")
        if "\x00" in (doc.get("body") or "") + (doc.get("title") or ""):
            errs.append(f"{label}: NUL in text")
    # version lifecycle: approved versions never overlap; a superseded version hands over
    by_doc = {}
    for (did, v), doc in docs.items():
        by_doc.setdefault(did, []).append(doc)
    for did, vs in by_doc.items():
        if len({x["tenant_id"] for x in vs}) > 1:
            errs.append(f"{did}: versions in different tenants")
        live = sorted(
            [x for x in vs if x["status"] in ("approved", "superseded")], key=lambda x: x["version"]
        )
        for a, b in zip(live, live[1:]):
            if a["valid_to"] is None or d(a["valid_to"]) > d(b["valid_from"]):
                errs.append(
                    f"{did}: versions {a['version']} and {b['version']} overlap in validity"
                )
        handed = sorted(
            [x for x in vs if x["status"] in ("approved", "superseded", "revoked")],
            key=lambda x: x["version"],
        )
        for x in vs:
            if x["status"] == "superseded":
                later = [y for y in handed if y["version"] > x["version"]]
                if x["valid_to"] is None or not later or later[0]["valid_from"] != x["valid_to"]:
                    errs.append(
                        f"{did}@{x['version']}: superseded without a successor starting at its valid_to"
                    )
    for i, t in enumerate(c.get("tasks", [])):
        key = (t.get("tenant_id"), t.get("task_id"))
        label = f"tasks[{i}] ({key[1]})"
        if key in tasks:
            errs.append(f"{label}: duplicate task in tenant")
        tasks[key] = t
        if t.get("tenant_id") not in tenants:
            errs.append(f"{label}: unknown tenant")
        if not valid_id(t.get("task_id"), "task"):
            errs.append(f"{label}: bad task_id")
        cust = (t.get("confirmed") or {}).get("customer_id")
        if cust is not None and not valid_id(cust, "customer"):
            errs.append(f"{label}: bad confirmed.customer_id")
        for eid in t.get("evidence_ids", []):
            p = parse_evidence(eid)
            if not p:
                errs.append(f"{label}: malformed evidence id {eid!r}")
                continue
            did, v, s, e = p
            doc = docs.get((did, v))
            if doc is None:
                errs.append(f"{label}: evidence {eid} names a missing version")
                continue
            if doc["tenant_id"] != t.get("tenant_id"):
                errs.append(f"{label}: evidence {eid} belongs to another tenant")
            if not in_scope(doc, cust):
                errs.append(f"{label}: evidence {eid} belongs to another customer")
            if not (0 <= s < e <= len(doc["body"])):
                errs.append(f"{label}: evidence {eid} span outside the body")
            if eid not in quotes:
                errs.append(f"{label}: evidence {eid} has no expected quote")
            elif doc["body"][s:e] != quotes[eid]:
                errs.append(
                    f"{label}: evidence {eid} slices {doc['body'][s:e]!r}, expected {quotes[eid]!r}"
                )
    seen = {eid for t in c.get("tasks", []) for eid in t.get("evidence_ids", [])}
    for eid in quotes:
        if eid not in seen:
            errs.append(f"expected quote for {eid} but no task cites it")
    return tenants, users, docs, tasks, by_doc


def check_golden(g, users, docs, tasks, by_doc, errs, spec_table=None):
    spec_table = SPEC if spec_table is None else spec_table
    if g.get("dataset_id") != DATASET_ID:
        errs.append(f"golden: dataset_id must be {DATASET_ID}")
    if g.get("as_of") != AS_OF:
        errs.append(f"golden: as_of must be {AS_OF}")
    try:
        day = d(g.get("as_of"))
    except (TypeError, ValueError):
        errs.append("golden: bad as_of")
        return
    ids = [c.get("case_id") for c in g.get("cases", [])]
    for cid in set(ids):
        if ids.count(cid) > 1:
            errs.append(f"golden: duplicate case_id {cid}")
    for cid in set(spec_table) - set(ids):
        errs.append(f"spec for {cid} has no case")
    for c in g.get("cases", []):
        cid = c.get("case_id")
        label = f"case {cid}"
        spec = spec_table.get(cid)
        if spec is None:
            errs.append(f"{label}: no hand-written spec")
            continue
        user = users.get(c.get("user_id"))
        if user is None:
            errs.append(f"{label}: unknown user {c.get('user_id')}")
            continue
        status = c.get("expect_status", "ok")
        task_customer = None
        if c.get("kind") == "task":
            task = tasks.get((user["tenant_id"], c.get("task_id")))
            if task is None:
                errs.append(f"{label}: task {c.get('task_id')} not found in the user's tenant")
                continue
            if not task_visible(task, user):
                errs.append(
                    f"{label}: task {c.get('task_id')} belongs to a customer the user may not see"
                )
            task_customer = (task.get("confirmed") or {}).get("customer_id")
            for f in c.get("must_not_request", []):
                if f not in (task.get("confirmed") or {}):
                    errs.append(f"{label}: must_not_request {f!r} is not a confirmed field")

        def resolve(ref, allow_bare):
            p = parse_ref(ref)
            if p is None:
                errs.append(f"{label}: malformed reference {ref!r}")
                return []
            did, v = p
            if v is None:
                if not allow_bare:
                    errs.append(f"{label}: relevant entry {ref!r} must name a version")
                    return []
                found = by_doc.get(did, [])
                if not found:
                    errs.append(f"{label}: {ref} does not exist")
                return found
            doc = docs.get((did, v))
            if doc is None:
                errs.append(f"{label}: {ref} does not exist")
                return []
            return [doc]

        rel_refs, forb_refs = c.get("relevant", []), c.get("forbidden", [])
        for lst, name in ((rel_refs, "relevant"), (forb_refs, "forbidden")):
            if len(set(lst)) != len(lst):
                errs.append(f"{label}: duplicate entry in {name}")
        rel = {}
        for ref in rel_refs:
            for doc in resolve(ref, False):
                rel[f"{doc['document_id']}@{doc['version']}"] = doc
        forb = {}
        for ref in forb_refs:
            for doc in resolve(ref, True):
                forb[f"{doc['document_id']}@{doc['version']}"] = doc
        for k in set(rel) & set(forb):
            errs.append(f"{label}: {k} is both relevant and forbidden")
        for k, doc in rel.items():
            if not usable(doc, user, day):
                errs.append(f"{label}: relevant {k} is not usable by {user['user_id']} on {day}")
            if not in_scope(doc, task_customer):
                errs.append(f"{label}: relevant {k} belongs to another customer than the task's")
            allowed = ("fact", "history") if spec.get("history_ok") else ("fact",)
            if doc["knowledge_class"] not in allowed:
                errs.append(f"{label}: relevant {k} is {doc['knowledge_class']}, not authoritative")
        for k, doc in forb.items():
            if usable(doc, user, day) and in_scope(doc, task_customer):
                errs.append(f"{label}: forbidden {k} is actually usable by {user['user_id']}")

        def body_has(ref, quote, what):
            p = parse_ref(ref)
            doc = docs.get(p) if p and p[1] is not None else None
            if doc is None:
                errs.append(f"{label}: {what} {ref} does not exist")
                return None
            if quote not in doc["body"]:
                errs.append(f"{label}: {what} quote not found in {ref}: {quote!r}")
            return doc

        for ref, quote in spec.get("traps", {}).items():
            body_has(ref, quote, "trap")
            if ref not in forb:
                errs.append(f"{label}: trap {ref} is not listed as forbidden")
        for ref, quote in spec.get("decoys", {}).items():
            doc = body_has(ref, quote, "decoy")
            if ref in rel or ref in forb:
                errs.append(f"{label}: decoy {ref} must be neither relevant nor forbidden")
            if doc is not None and not usable(doc, user, day):
                errs.append(f"{label}: decoy {ref} should be a version the user can read")

        if status in ("ok", "ready_for_review"):
            if c.get("kind") == "task" and status != "ready_for_review":
                errs.append(f"{label}: task cases use ready_for_review")
            ans = spec.get("answers")
            if not ans or "conflict" in spec or "absent" in spec:
                errs.append(f"{label}: {status} needs answers (and no conflict/absent) in its spec")
                continue
            if not rel:
                errs.append(f"{label}: {status} without relevant versions")
            if set(ans) != set(rel):
                errs.append(
                    f"{label}: relevant {sorted(rel)} differ from the answering versions {sorted(ans)}"
                )
            for ref, quotes in ans.items():
                for q in quotes:
                    body_has(ref, q, "answer")
        elif status == "source_conflict":
            conf = spec.get("conflict")
            if not conf or "answers" in spec or "absent" in spec:
                errs.append(
                    f"{label}: source_conflict needs conflict (and no answers/absent) in its spec"
                )
                continue
            if set(conf) != set(rel):
                errs.append(
                    f"{label}: relevant {sorted(rel)} differ from the conflicting versions {sorted(conf)}"
                )
            if len({doc["document_id"] for doc in rel.values()}) < 2:
                errs.append(f"{label}: a conflict needs two different documents")
            if len({doc.get("customer_id") for doc in rel.values()}) > 1:
                errs.append(f"{label}: conflicting versions are of different customer scopes")
            if any(doc["knowledge_class"] != "fact" for doc in rel.values()):
                errs.append(f"{label}: conflicting versions must all be fact")
            if len({val for _, val in conf.values()}) < 2:
                errs.append(f"{label}: conflicting values are all equal")
            for ref, (q, _) in conf.items():
                body_has(ref, q, "conflict")
        elif status == "insufficient_evidence":
            groups = spec.get("absent")
            if not groups or "answers" in spec or "conflict" in spec:
                errs.append(
                    f"{label}: insufficient_evidence needs absent groups (and no answers/conflict)"
                )
                continue
            if rel:
                errs.append(f"{label}: insufficient_evidence cases list no relevant versions")
            authoritative = [
                doc
                for doc in docs.values()
                if usable(doc, user, day)
                and in_scope(doc, task_customer)
                and doc["knowledge_class"] == "fact"
            ]
            for group in groups:
                for doc in authoritative:
                    text = doc["title"] + "\n" + doc["body"]
                    if all(s in text for s in group):
                        errs.append(
                            f"{label}: {doc['document_id']}@{doc['version']} is citable and states {group}"
                        )
        else:
            errs.append(f"{label}: unknown expect_status {status!r}")


def run_checks(corpus, golden, schemas, spec_table=None, quotes=None):
    errs = []
    errs += schema_errors(corpus, schemas[0], "corpus")
    errs += schema_errors(golden, schemas[1], "golden")
    if errs:
        return errs
    try:
        _, users, docs, tasks, by_doc = check_corpus(corpus, errs, quotes)
        check_golden(golden, users, docs, tasks, by_doc, errs, spec_table)
    except Exception as exc:  # malformed data must fail the check, not crash it
        errs.append(f"checker raised {type(exc).__name__}: {exc}")
    return errs


# ---------------------------------------------------------------------------------------------
# Self-test: each mutation must be caught.
def _doc(c, did, v):
    return next(x for x in c["documents"] if x["document_id"] == did and x["version"] == v)


def _user(c, uid):
    return next(x for x in c["users"] if x["user_id"] == uid)


def _case(g, cid):
    return next(x for x in g["cases"] if x["case_id"] == cid)


def _task(c, tid):
    return next(x for x in c["tasks"] if x["task_id"] == tid)


def _set(obj, **kw):
    obj.update(kw)


def _edit(c, did, v, old, new):
    doc = _doc(c, did, v)
    assert old in doc["body"], (did, old)
    doc["body"] = doc["body"].replace(old, new)


# (what is broken, mutation applied to copies of corpus c / golden g / spec s / task quotes q,
#  text the resulting error list must contain: the mutation is caught for the right reason)
MUTATIONS = [
    # task evidence spans
    (
        "task evidence offsets shifted by one",
        lambda c, g, s, q: _set(_task(c, "BQ-2026-1103"), evidence_ids=["MAIL-BQ-1103@1:168-199"]),
        "MAIL-BQ-1103@1:168-199 has no expected quote",
    ),
    (
        "expected quote no longer what the offsets slice",
        lambda c, g, s, q: q.__setitem__(
            "MAIL-OL-1116@1:166-260",
            "We have 7 new hires who need the Pre-employment Basic medical exam before they start on 1 Dec.",
        ),
        "MAIL-OL-1116@1:166-260 slices",
    ),
    (
        "task evidence span beyond the body",
        lambda c, g, s, q: _set(_task(c, "OL-PE-118"), evidence_ids=["MAIL-OL-1116@1:166-9999"]),
        "span outside the body",
    ),
    (
        "task evidence names a missing version",
        lambda c, g, s, q: _set(
            _task(c, "HC-FAM-1105"), evidence_ids=["MAIL-HECHENG-1105@2:146-169"]
        ),
        "names a missing version",
    ),
    (
        "task evidence body edited",
        lambda c, g, s, q: _edit(c, "MAIL-BQ-1117", 1, "12 位", "十二位"),
        "MAIL-BQ-1117@1:154-189 slices",
    ),
    (
        "task evidence of another customer",
        lambda c, g, s, q: _task(c, "BQ-PLANB-RPT")["evidence_ids"].append(
            "MAIL-OL-1116@1:166-260"
        ),
        "MAIL-OL-1116@1:166-260 belongs to another customer",
    ),
    # relevant versions that are not usable
    (
        "relevant version expired",
        lambda c, g, s, q: _set(_doc(c, "CT-BRIGHTQUAY", 2), valid_to="2026-11-01"),
        "relevant CT-BRIGHTQUAY@2 is not usable",
    ),
    (
        "relevant version revoked",
        lambda c, g, s, q: _set(_doc(c, "HK-FEES", 2), status="revoked"),
        "relevant HK-FEES@2 is not usable",
    ),
    (
        "relevant version is a draft",
        lambda c, g, s, q: _set(_doc(c, "SZ-HOURS", 1), status="draft", approved_by=None),
        "relevant SZ-HOURS@1 is not usable",
    ),
    (
        "relevant version not yet valid",
        lambda c, g, s, q: _set(_doc(c, "HK-PH-2026XMAS", 1), valid_from="2026-12-01"),
        "relevant HK-PH-2026XMAS@1 is not usable",
    ),
    (
        "relevant version ACL no longer matches",
        lambda c, g, s, q: _set(_doc(c, "HK-SPECIMEN-QC", 1), acl=["role:knowledge_owner"]),
        "relevant HK-SPECIMEN-QC@1 is not usable",
    ),
    (
        "relevant version of another tenant",
        lambda c, g, s, q: _case(g, "bq-plan-a-price")["relevant"].append("BQ-CONTRACT-COPY@1"),
        "relevant BQ-CONTRACT-COPY@1 is not usable",
    ),
    (
        "relevant inference document",
        lambda c, g, s, q: _case(g, "hk-central-sat-hours")["relevant"].append("INF-HK-WAITTIME@1"),
        "relevant INF-HK-WAITTIME@1 is inference",
    ),
    (
        "history version as relevant for a current fact",
        lambda c, g, s, q: (
            _case(g, "sg-fdw-6me-pending").update(
                expect_status="ok", relevant=["CHAT-SG-COUNTER-2026-11@1"], forbidden=[]
            ),
            s.__setitem__(
                "sg-fdw-6me-pending", {"answers": {"CHAT-SG-COUNTER-2026-11@1": ["FDW S$65"]}}
            ),
        ),
        "relevant CHAT-SG-COUNTER-2026-11@1 is history",
    ),
    (
        "task case relevant of another customer",
        lambda c, g, s, q: (
            _case(g, "task-orchid-pre-employment")["relevant"].append("CT-HECHENG-2026@1"),
            _case(g, "task-orchid-pre-employment")["forbidden"].remove("CT-HECHENG-2026@1"),
        ),
        "relevant CT-HECHENG-2026@1 belongs to another customer than the task's",
    ),
    # forbidden versions that are actually legitimate
    (
        "forbidden revoked version is really approved",
        lambda c, g, s, q: _set(_doc(c, "HK-PROMO-SENIOR-FLU", 1), status="approved"),
        "forbidden HK-PROMO-SENIOR-FLU@1 is actually usable",
    ),
    (
        "forbidden draft is really approved",
        lambda c, g, s, q: _set(
            _doc(c, "HK-PHYSIO-FEES", 1),
            status="approved",
            approved_by="km.leung",
            valid_from="2026-11-01",
        ),
        "forbidden HK-PHYSIO-FEES@1 is actually usable",
    ),
    (
        "forbidden rejected version is really approved and in effect",
        lambda c, g, s, q: (
            _set(_doc(c, "SZ-REFUND", 2), status="approved", approved_by="km.leung"),
            _set(_doc(c, "SZ-REFUND", 1), status="superseded", valid_to="2026-09-01"),
        ),
        "forbidden SZ-REFUND@2 is actually usable",
    ),
    (
        "forbidden scheduled version already in effect",
        lambda c, g, s, q: (
            _set(_doc(c, "HK-FEES", 3), valid_from="2026-11-01"),
            _set(_doc(c, "HK-FEES", 2), valid_to="2026-11-01"),
        ),
        "forbidden HK-FEES@3 is actually usable",
    ),
    (
        "forbidden expired contract still valid",
        lambda c, g, s, q: _set(_doc(c, "CT-ORCHIDLANE-FLU-2025", 1), valid_to="2027-03-01"),
        "forbidden CT-ORCHIDLANE-FLU-2025@1 is actually usable",
    ),
    (
        "forbidden superseded version still approved",
        lambda c, g, s, q: (
            _set(_doc(c, "HK-VAX-SOP", 1), status="approved", valid_to=None),
            _set(_doc(c, "HK-VAX-SOP", 2), valid_from="2099-01-01"),
        ),
        "forbidden HK-VAX-SOP@1 is actually usable",
    ),
    (
        "forbidden user-ACL document readable by the tenant",
        lambda c, g, s, q: _set(_doc(c, "HK-DB-SETTLEMENT", 1), acl=["tenant"]),
        "forbidden HK-DB-SETTLEMENT@1 is actually usable",
    ),
    (
        "forbidden other-tenant document moved into the user's tenant",
        lambda c, g, s, q: _set(
            _doc(c, "BQ-HR-MEMO-2026", 1), tenant_id="cedarwell", approved_by="km.leung"
        ),
        "forbidden BQ-HR-MEMO-2026@1 is actually usable",
    ),
    (
        "forbidden other-customer document in scope of the task",
        lambda c, g, s, q: _set(_doc(c, "CT-HECHENG-2026", 1), customer_id="C-ORCHIDLANE"),
        "forbidden CT-HECHENG-2026@1 is actually usable",
    ),
    (
        "trap not listed as forbidden",
        lambda c, g, s, q: _case(g, "hk-gp-fee-colloquial")["forbidden"].remove("HK-FEES@3"),
        "trap HK-FEES@3 is not listed as forbidden",
    ),
    (
        "decoy the user cannot read",
        lambda c, g, s, q: s["hk-hpv-near-miss-region"]["decoys"].__setitem__(
            "HK-SPECIMEN-QC@1", "溶血"
        ),
        "decoy HK-SPECIMEN-QC@1 should be a version the user can read",
    ),
    # users, tenants, grants
    (
        "user placed in the wrong tenant",
        lambda c, g, s, q: _set(_user(c, "hk.desk.mei"), tenant_id="brightquay"),
        "is not usable by hk.desk.mei",
    ),
    (
        "user loses the customer grant",
        lambda c, g, s, q: _set(_user(c, "hk.desk.mei"), grants=[]),
        "relevant CT-BRIGHTQUAY@2 is not usable by hk.desk.mei",
    ),
    (
        "user without grant gains it",
        lambda c, g, s, q: _set(_user(c, "hk.desk.kalok"), grants=["customer:C-BRIGHTQUAY"]),
        "forbidden CT-BRIGHTQUAY@2 is actually usable by hk.desk.kalok",
    ),
    (
        "engineer becomes sales (loses clinical ACL)",
        lambda c, g, s, q: _set(_user(c, "nurse.hk.ho"), roles=["sales"]),
        "relevant HK-SPECIMEN-QC@1 is not usable by nurse.hk.ho",
    ),
    (
        "task case run by a user without the customer grant",
        lambda c, g, s, q: _set(_case(g, "task-bq-plan-b-report-date"), user_id="hk.desk.kalok"),
        "belongs to a customer the user may not see",
    ),
    (
        "task moved to another tenant",
        lambda c, g, s, q: _set(_task(c, "SG-WALKIN-1118"), tenant_id="brightquay"),
        "task SG-WALKIN-1118 not found in the user's tenant",
    ),
    # broken references
    (
        "case names an unknown user",
        lambda c, g, s, q: _set(_case(g, "hk-gp-fee-colloquial"), user_id="hk.desk.nobody"),
        "unknown user hk.desk.nobody",
    ),
    (
        "relevant names a missing version",
        lambda c, g, s, q: _case(g, "hk-gp-fee-colloquial")["relevant"].append("HK-FEES@9"),
        "HK-FEES@9 does not exist",
    ),
    (
        "relevant entry without a version",
        lambda c, g, s, q: _set(_case(g, "hk-gp-fee-colloquial"), relevant=["HK-FEES"]),
        "must name a version",
    ),
    (
        "forbidden names a missing document",
        lambda c, g, s, q: _case(g, "hk-parking-unstated")["forbidden"].append("HK-PARKING"),
        "HK-PARKING does not exist",
    ),
    (
        "task case names a missing task",
        lambda c, g, s, q: _set(_case(g, "task-sg-fdw-6me"), task_id="SG-WALKIN-9999"),
        "task SG-WALKIN-9999 not found",
    ),
    (
        "must_not_request names an unconfirmed field",
        lambda c, g, s, q: _case(g, "task-hk-palmcrest-ecg")["must_not_request"].append("budget"),
        "'budget' is not a confirmed field",
    ),
    (
        "approver is not a user",
        lambda c, g, s, q: _set(_doc(c, "SZ-FEES", 2), approved_by="someone.else"),
        "approved_by 'someone.else' is not a user",
    ),
    (
        "case without a hand-written spec",
        lambda c, g, s, q: g["cases"].append(
            dict(copy.deepcopy(_case(g, "hk-parking-unstated")), case_id="hk-parking-2")
        ),
        "hk-parking-2: no hand-written spec",
    ),
    # ids and uniqueness
    (
        "duplicate document version",
        lambda c, g, s, q: c["documents"].append(copy.deepcopy(_doc(c, "HK-HOURS", 2))),
        "duplicate (document_id, version)",
    ),
    (
        "duplicate case id",
        lambda c, g, s, q: g["cases"].append(copy.deepcopy(_case(g, "hk-tsuen-wan-nonexistent"))),
        "duplicate case_id",
    ),
    (
        "duplicate user id",
        lambda c, g, s, q: c["users"].append(copy.deepcopy(_user(c, "finance.ng"))),
        "duplicate user_id",
    ),
    (
        "duplicate entry in relevant",
        lambda c, g, s, q: _case(g, "sz-futian-sunday")["relevant"].append("SZ-HOURS@1"),
        "duplicate entry in relevant",
    ),
    (
        "document id with a zero-width space",
        lambda c, g, s, q: _set(_doc(c, "SG-FEES", 1), document_id="SG-\u200bFEES"),
        "bad document_id",
    ),
    # ACL, grants, lifecycle
    (
        "unknown ACL entry",
        lambda c, g, s, q: _set(_doc(c, "HK-HOURS", 2), acl=["everyone"]),
        "bad ACL entry 'everyone'",
    ),
    (
        "empty ACL",
        lambda c, g, s, q: _set(_doc(c, "SZ-REFUND", 1), acl=[]),
        "acl: fewer than 1 items",
    ),
    (
        "ACL names a user of another tenant",
        lambda c, g, s, q: _set(_doc(c, "HK-DB-SETTLEMENT", 1), acl=["user:bq.joyce"]),
        "bad ACL entry 'user:bq.joyce'",
    ),
    (
        "malformed grant",
        lambda c, g, s, q: _set(_user(c, "sg.desk.raj"), grants=["C-ORCHIDLANE"]),
        "bad grant 'C-ORCHIDLANE'",
    ),
    (
        "valid_to before valid_from",
        lambda c, g, s, q: _set(_doc(c, "HK-HANDBOOK", 4), valid_to="2025-01-01"),
        "valid_to must be after valid_from",
    ),
    (
        "approved version without approver",
        lambda c, g, s, q: _set(_doc(c, "SZ-FEES", 2), approved_by=None),
        "approved_by None is not a user",
    ),
    (
        "draft with an approver",
        lambda c, g, s, q: _set(_doc(c, "HK-PHYSIO-FEES", 1), approved_by="km.leung"),
        "approved_by must be null",
    ),
    (
        "approver from another tenant",
        lambda c, g, s, q: _set(_doc(c, "SZ-FEES", 2), approved_by="bq.hr.admin"),
        "approved_by 'bq.hr.admin' is not a user of tenant cedarwell",
    ),
    (
        "approved inference",
        lambda c, g, s, q: _set(
            _doc(c, "INF-HK-WAITTIME", 1), status="approved", approved_by="km.leung"
        ),
        "an inference is kept as a draft",
    ),
    (
        "two approved versions overlap",
        lambda c, g, s, q: _set(_doc(c, "HK-HOURS", 1), status="approved", valid_to=None),
        "HK-HOURS: versions 1 and 2 overlap",
    ),
    (
        "superseded version without a successor",
        lambda c, g, s, q: _set(_doc(c, "SG-HOURS", 1), valid_to="2026-06-01"),
        "SG-HOURS@1: superseded without a successor",
    ),
    # status consistency
    (
        "answer text removed from the relevant body",
        lambda c, g, s, q: _edit(c, "HK-HOURS", 2, "09:00–13:00", "09:00–14:00"),
        "answer quote not found in HK-HOURS@2",
    ),
    (
        "ok case relabelled source_conflict",
        lambda c, g, s, q: _set(_case(g, "hk-flu-observation"), expect_status="source_conflict"),
        "source_conflict needs conflict",
    ),
    (
        "insufficient case relabelled ok",
        lambda c, g, s, q: _set(_case(g, "hk-tsuen-wan-nonexistent"), expect_status="ok"),
        "ok needs answers",
    ),
    (
        "conflict case relabelled ok",
        lambda c, g, s, q: _set(_case(g, "sz-consult-fee"), expect_status="ok"),
        "ok needs answers",
    ),
    (
        "task relabelled ok instead of ready_for_review",
        lambda c, g, s, q: _set(_case(g, "task-hk-palmcrest-ecg"), expect_status="ok"),
        "golden schema",
    ),
    (
        "ok case missing one answering version",
        lambda c, g, s, q: _case(g, "bq-plan-a-price")["relevant"].remove("CT-BRIGHTQUAY-SCHED@1"),
        "differ from the answering versions",
    ),
    (
        "conflict between different customer scopes",
        lambda c, g, s, q: _set(_doc(c, "CT-ORCHIDLANE-RATECARD", 1), customer_id=None),
        "conflicting versions are of different customer scopes",
    ),
    (
        "conflict statement edited away",
        lambda c, g, s, q: _edit(c, "SZ-PRICE-NOTICE", 1, "| 350 |", "| 380 |"),
        "conflict quote not found in SZ-PRICE-NOTICE@1",
    ),
    (
        "conflicting values recorded as equal",
        lambda c, g, s, q: s["hk-refund-notice-days"]["conflict"].__setitem__(
            "HK-REFUND-EN@1",
            (s["hk-refund-notice-days"]["conflict"]["HK-REFUND-EN@1"][0], "3 working days"),
        ),
        "conflicting values are all equal",
    ),
    (
        "conflict with one document only",
        lambda c, g, s, q: _set(_case(g, "hk-fridge-log-frequency"), relevant=["HK-VAX-SOP@2"]),
        "differ from the conflicting versions",
    ),
    (
        "conflict between two versions of one document",
        lambda c, g, s, q: (
            _set(_case(g, "sz-consult-fee"), relevant=["SZ-FEES@2", "SZ-FEES@1"], forbidden=[]),
            s.__setitem__(
                "sz-consult-fee",
                {
                    "conflict": {
                        "SZ-FEES@2": ("| 普通门诊诊金 | ¥380 |", "380"),
                        "SZ-FEES@1": ("| 普通门诊诊金 | ¥320 |", "320"),
                    }
                },
            ),
        ),
        "a conflict needs two different documents",
    ),
    (
        "conflict with a history version",
        lambda c, g, s, q: (
            _set(
                _case(g, "orchid-essential-price"),
                relevant=["CT-ORCHIDLANE-2026@1", "QT-ORCHIDLANE-2024@1"],
            ),
            s.__setitem__(
                "orchid-essential-price",
                {
                    "conflict": {
                        "CT-ORCHIDLANE-2026@1": ("S$268", "268"),
                        "QT-ORCHIDLANE-2024@1": ("S$248", "248"),
                    }
                },
            ),
        ),
        "conflicting versions must all be fact",
    ),
    (
        "answer leaks into a citable document",
        lambda c, g, s, q: _edit(
            c,
            "HK-HOURS",
            2,
            "1. 截止登記",
            "| 荃灣診所 | 09:00–19:00 | 09:00–13:00 | 休息 |\n1. 截止登記",
        ),
        "HK-HOURS@2 is citable and states ['荃灣']",
    ),
    (
        "withheld answer becomes citable for a task",
        lambda c, g, s, q: (
            _set(
                _doc(c, "SG-FEES", 2),
                status="approved",
                approved_by="km.leung",
                valid_from="2026-11-01",
            )
            or _set(_doc(c, "SG-FEES", 1), status="superseded", valid_to="2026-11-01")
        ),
        "case task-sg-fdw-6me: SG-FEES@2 is citable",
    ),
    (
        "insufficient case lists a relevant version",
        lambda c, g, s, q: _case(g, "hk-parking-unstated")["relevant"].append("HK-HOURS@2"),
        "insufficient_evidence cases list no relevant versions",
    ),
    (
        "relevant and forbidden overlap",
        lambda c, g, s, q: _case(g, "hk-gp-fee-colloquial")["forbidden"].append("HK-FEES@2"),
        "HK-FEES@2 is both relevant and forbidden",
    ),
    # file level
    (
        "as_of moved",
        lambda c, g, s, q: g.__setitem__("as_of", "2027-02-01"),
        "as_of must be 2026-11-20",
    ),
    (
        "dataset id changed",
        lambda c, g, s, q: g.__setitem__("dataset_id", "clinic-desk@2"),
        "dataset_id must be clinic-desk@1",
    ),
    (
        "schema: version 0",
        lambda c, g, s, q: _set(_doc(c, "HK-FEES", 1), version=0),
        "version: below 1",
    ),
    (
        "schema: unknown case kind",
        lambda c, g, s, q: _set(_case(g, "hk-parking-unstated"), kind="search"),
        "golden schema",
    ),
    (
        "schema: task case without expect_status",
        lambda c, g, s, q: _case(g, "task-sg-fdw-6me").pop("expect_status"),
        "golden schema",
    ),
    (
        "schema: bad task status",
        lambda c, g, s, q: _set(_task(c, "OL-PE-118"), status="paused"),
        "'paused' not in",
    ),
    (
        "schema: bad date",
        lambda c, g, s, q: _set(_doc(c, "SG-FEES", 1), valid_from="2026-13-01"),
        "not a date",
    ),
    (
        "schema: wrong corpus schema_version",
        lambda c, g, s, q: c.__setitem__("schema_version", "corpus@2"),
        "corpus schema",
    ),
]


def main(argv):
    with open(CORPUS_FILE, encoding="utf-8") as f:
        corpus = json.load(f)
    with open(GOLDEN_FILE, encoding="utf-8") as f:
        golden = json.load(f)
    schemas = (load_schema(CORPUS_SCHEMA), load_schema(GOLDEN_SCHEMA))
    base = run_checks(corpus, golden, schemas)
    if "--self-test" not in argv:
        for e in base:
            print("ERROR", e)
        cases = golden["cases"]
        print(
            f"{len(corpus['documents'])} document versions, {len(corpus['users'])} users, "
            f"{len(corpus['tasks'])} tasks, {len(cases)} cases: {'FAIL' if base else 'OK'}"
        )
        return 1 if base else 0
    if base:
        for e in base:
            print("ERROR (unmutated)", e)
        return 1
    missed = 0
    for name, fn, expected in MUTATIONS:
        c, g = copy.deepcopy(corpus), copy.deepcopy(golden)
        s, q = copy.deepcopy(SPEC), dict(EXPECTED_TASK_QUOTES)
        fn(c, g, s, q)
        found = run_checks(c, g, schemas, s, q)
        hit = [e for e in found if expected in e]
        if hit:
            print(f"caught   {name}: {hit[0][:120]}")
        else:
            missed += 1
            print(f"MISSED   {name} (wanted {expected!r}; got {found[:2]})")
    print(f"self-test: {len(MUTATIONS) - missed}/{len(MUTATIONS)} mutations caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
