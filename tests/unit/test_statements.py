"""Conflicts read through the question (services/retrieval/statements.py), on text in the style
of several datasets: a freight forwarder's SOP and quick-reference table (English), a pharma QA
manual and SOP (Simplified Chinese), a distributor's return policy (mixed), a machining shop's
price sheet and a titanium work standard (Traditional Chinese)."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from services.contracts.evidence_id import evidence_id_for
from services.language import tokens as text
from services.retrieval import answerability, relevance, spans, statements
from services.retrieval.eligibility import ChunkRow, Verified
from services.retrieval.embedders import UseEmbedder
from services.retrieval.types import Evidence

DOCS = {
    # clinic: the vaccination SOP and the cold-chain log sheet, which disagree on how many
    # times a day the vaccine fridge is read
    "HK-VAX-SOP": (
        "疫苗接種及冷鏈管理 SOP（第2版）",
        "1. 儲存\n   1.1 疫苗雪櫃溫度須維持於 2°C 至 8°C。\n"
        "   1.2 當值護士須每日兩次（09:00 及 17:00）記錄雪櫃溫度及最高／最低溫度。",
    ),
    "HK-COLDCHAIN-CHECKLIST": (
        "疫苗雪櫃溫度記錄表 CC-01",
        "疫苗雪櫃溫度記錄表（表格 CC-01，2026年3月版）\n使用說明：\n"
        "- 每日三次記錄：09:00、13:00、17:00。\n- 記錄現時溫度、最高及最低溫度，並簽署。",
    ),
    # propmgmt: a cleaning contract and the pest-control SOP's revision, which disagree on how
    # many times a month the estate is fogged against mosquitoes
    "CONTRACT-KF-CLEAN": (
        "景峰大廈 清潔及滅蟲服務合約",
        "1. 清潔\n1.2 每日收集各樓層垃圾兩次（10:00及20:30）。\n"
        "2. 滅蟲\n2.1 公用地方滅鼠及滅曱甴：每月一次。\n2.2 噴霧滅蚊：每月兩次（全年）。",
    ),
    "SOP-PEST-REVISED": (
        "滅蟲工作安排（修訂）",
        "修訂事項：\n1. 噴霧滅蚊全年改為每月三次。\n2. 垃圾房滅曱甴改為每兩個月一次。",
    ),
    # hkrepair: a property manager's maintenance contract and the desk's account note, which
    # disagree on the parts discount (85 折 is 15 % off; 9 折 is 10 % off)
    "CON-HARBOUR": (
        "海港置業 冷氣保養合約",
        "海港置業有限公司 冷氣機保養合約（摘要）\n四、人工：按本公司收費表收費。\n"
        "五、零件：按本公司零件價目 85 折收費；單次零件費超過 HK$3,000 須經管理處書面確認。",
    ),
    "NOTE-HARBOUR-ACCOUNT": (
        "海港置業 客戶資料卡",
        "海港置業（Harbour）客戶資料卡\n零件：一律打 9 折。\n人工：照收費表。",
    ),
    # dealer: the KL branch's labour table and its service procedure, which disagree on the
    # standard hours of one service
    "KL-RATE": (
        "KL Cheras labour rate and standard hours",
        "Dingsheng Motors Kuala Lumpur (Cheras) - Labour Rate & Standard Hours\n"
        "Effective: 2026-03-01\nLabour rate: RM 150.00 per hour (excl. SST)\n"
        "| Job | Std hours | Labour (RM) |\n|---|---|---|\n"
        "| Aster 20,000 km service | 1.8 | 270.00 |\n"
        "| Loda 60,000 km service | 3.0 | 450.00 |\n| Brake fluid replacement | 0.6 | 90.00 |\n"
        "SST at 8% is added on the invoice.",
    ),
    "KL-SOP-SERVICE": (
        "KL branch service procedure",
        "KL Branch Service Procedure (KL-SOP-SERVICE)\nEffective: 2026-06-15\n"
        "7.1 Every job card must list standard hours from the branch labour table.\n"
        "7.2 The Loda 60,000 km service is booked as 3.5 labour hours because the rear brake "
        "inspection was added.\n7.3 Courtesy car only for jobs over one working day.",
    ),
    # a ready-meal maker: its shelf-life table and a retailer's code of practice, which
    # disagree on a ready meal's shelf life
    "SHELF-LIFE-TABLE": (
        "Shelf-life table, chilled range",
        "Shelf-life table - chilled range (issue 4)\n| Product | Shelf life (days) | Storage |\n"
        "|---|---|---|\n| Chicken tikka ready meal | 7 | 0-5 °C |\n"
        "| Vegetable lasagne | 6 | 0-5 °C |",
    ),
    "COP-READY-MEAL": (
        "Retailer code of practice: chilled ready meals",
        "3. Shelf life\n3.1 The shelf life of a chicken tikka ready meal shall not exceed 5 "
        "days from production.\n3.2 Labels state the use-by date only.",
    ),
    # fastener: the packing SOP (Traditional Chinese) and the export packing instruction
    # (English), which disagree on a carton's gross weight
    "SOP-PACKING-ZH": (
        "包裝作業標準 LOG-SOP-002",
        "文件編號：LOG-SOP-002\n一、內銷：塑膠袋＋紙箱，每箱毛重不得超過 20 公斤。\n"
        "二、外銷紙箱：雙層瓦楞紙箱（AB 楞），每箱毛重不得超過 25 公斤；每棧板不超過 1,000 公斤，"
        "棧板須為 ISPM 15 熱處理木棧板並打 IPPC 標記。\n三、標籤：料號、數量、批號、出貨日期。",
    ),
    "WI-EXPORT-PACKING": (
        "Export Packing Work Instruction WI-LOG-004",
        "Document: WI-LOG-004  Owner: Logistics\nScope: all export shipments to the US, the EU "
        "and Japan.\n1. Cartons: double-wall corrugated. Max. gross weight per carton: 20 kg.\n"
        "2. Pallets: ISPM 15 heat-treated wood with IPPC mark, max. 1,000 kg per pallet, height "
        'max. 1.1 m.\n3. Labels: part number, quantity, lot number and "Made in Taiwan" on two '
        "sides of each carton.",
    ),
    # a forwarder's warehouse: its export handling rule (Simplified Chinese) and the English
    # packing guide it gives shippers, which disagree on a pallet's gross weight
    "SOP-WH-EXPORT": (
        "出口货物仓库作业规范 WH-SOP-007",
        "一、收货：出口货物须于截关前 24 小时进仓。\n"
        "二、出口托盘：须使用 ISPM 15 熏蒸木托盘，每托毛重不得超过 1,000 公斤，"
        "高度不超过 1.6 米。\n"
        "三、标签：每件货物两侧须贴唛头。",
    ),
    "GUIDE-SHIPPER-PACKING": (
        "Shipper packing guide",
        "Packing guide for shippers\n1. Export pallets: ISPM 15 wood only. Max. gross weight "
        "per pallet: 800 kg.\n2. Shipping marks on two sides of every package.",
    ),
    # clinic: the Shenzhen clinics' price notice and their fee schedule (Simplified Chinese),
    # which disagree on the consultation fee
    "SZ-PRICE-NOTICE": (
        "医疗服务价格公示（福田、南山）",
        "医疗服务价格公示（福田门诊部、南山门诊部）\n公示日期：2026年7月1日\n\n"
        "| 服务项目 | 计价单位 | 价格（元） |\n|---|---|---|\n"
        "| 普通门诊诊金 | 次 | 350 |\n| 夜诊附加费 | 次 | 100 |\n"
        "| 九价 HPV 疫苗 | 针 | 1380 |\n\n如对价格有疑问，请向前台咨询。",
    ),
    "SZ-FEES": (
        "深圳门诊部收费标准（2026年7月版）",
        "深圳栢泉门诊部 收费标准（2026年7月版）\n"
        "适用：福田门诊部、南山门诊部　生效日期：2026年7月1日\n\n"
        "| 项目 | 价格（人民币） |\n|---|---|\n| 普通门诊诊金 | ¥380 |\n"
        "| 夜诊附加费（19:00 后） | ¥100 |\n| 个人入职体检 | ¥498 |\n\n备注：以上价格含税。",
    ),
    # hkrepair: a retailer's service hours and its counter staff's FAQ (Cantonese), which
    # disagree on when the repair hotline closes
    "SOP-HOURS": (
        "維修部服務時間",
        "港電家品有限公司　維修部服務時間（2026年1月1日起）\n\n"
        "一、維修熱線 2388 6600 服務時間：星期一至六 上午 9 時至下午 6 時；星期日及公眾假期休息。\n"
        "二、上門服務時段：星期一至六 上午 9 時至晚上 9 時（晚上 7 時後之附加費按"
        "《上門檢查及維修收費標準》收取）；星期日及公眾假期上門只限預約。",
    ),
    "FAQ-CS": (
        "客戶服務常見問題（門市及熱線用）",
        "客戶服務常見問題（門市及熱線同事適用，2026年3月版）\n\n問：維修熱線幾點至幾點有人聽？\n"
        "答：維修熱線 2388 6600，星期一至六 上午 9 時至晚上 7 時，星期日及公眾假期休息。\n\n"
        "問：安心保要喺幾耐之內登記？\n答：購買日起計 60 日內登記。",
    ),
    # demo: two calibration rules that disagree on the handheld gauges' interval
    "SOP-CALIB-EN": (
        "Measuring Equipment Calibration Procedure",
        "Every instrument carries a label showing its ID, the date of its last calibration and "
        "the date it is next due. The calibration interval for handheld gauges is 6 months. The "
        "CMM is calibrated by an accredited external laboratory once a year.\n\nAn instrument "
        "that is overdue, has been dropped or is found out of tolerance is tagged DO NOT USE and "
        "taken off the line. Calibration certificates are kept in the QMS and can be supplied to "
        "customers on request.",
    ),
    "SOP-GAUGE-QA-EN": (
        "Gauge Control Rules for the Quality Lab",
        "Gauges are signed out against the operator's badge and returned at the end of each "
        "shift. The calibration interval for handheld gauges is 12 months; thread plug and ring "
        "gauges follow the same interval. Before each use the operator zeroes the instrument "
        "against its setting standard and records the check on the cell's daily sheet.",
    ),
    # fastener: a customer's quality agreement and its supplier manual
    "QA-DETROIT": (
        "Supplier Quality Agreement — Great Lakes Automotive Components (GLAC)",
        "3.1 PPAP: per AIAG PPAP 4th edition, submission Level 3 for every new or changed part "
        "number.\n5.2 Record retention: quality records, PPAP files and control plans shall be "
        "retained for 15 years after end of production of the part.",
    ),
    "SRM-DETROIT": (
        "GLAC Supplier Requirements Manual, Rev. F — excerpt",
        "Section 9 Records: the supplier shall retain quality records, including PPAP "
        "submissions and inspection data, for a minimum of 10 years after the part is last "
        "produced.",
    ),
    "SOP-SEA": (
        "Sea Export - FCL Booking & Documentation",
        "3. Verified Gross Mass (VGM)\n3.1 The shipper is responsible for the VGM.\n"
        "3.2 The VGM must reach the carrier no later than 24 hours before the CY cut-off.",
    ),
    "NOTE-CUTOFF": (
        "Ops quick reference - export cut-offs",
        "Item | Deadline\nSI to carrier | 48 hrs before ETD\nVGM to carrier | 48 hrs before CY "
        "cut-off\nHazardous (DG) declaration to carrier | 72 hrs before ETD",
    ),
    "NOTE-CUTOFF-SAME": (
        "Ops quick reference (Manchester)",
        "Item | Deadline\nVGM to carrier | 24 hrs before CY cut-off",
    ),
    "QM-001": (
        "质量手册 物料与供应商管理",
        "7.2 关键物料（原料药、直接接触药品的包装材料）供应商须经现场审计批准，"
        "现场审计周期不超过36个月。",
    ),
    "SOP-QA-040": (
        "供应商确认与管理规程",
        "3. 现场审计\n3.1 A类供应商每24个月进行一次现场审计。",
    ),
    "SOP-RMA": (
        "退貨作業程序",
        "3. 非不良品退貨 (stock return)\n3.2 收取 restocking fee 15%（以原發票金額計）。",
    ),
    "POLICY-PRICING": (
        "報價與價格政策",
        "4.2 非不良品退貨之 restocking fee：20%。",
    ),
    "FISH-A": ("長齒鋸犁鰻", "長齒鋸犁鰻是鰻鱺目蛇鰻科的其中一種。體長可達76公分。"),
    "FISH-B": ("異齒前肛鰻", "異齒前肛鰻是鰻鱺目蛇鰻科的其中一種。體長可達22.4公分。"),
    "LIN-DONATION": (
        "林茂堂捐贈陶瓷",
        "1932 年（昭和 7 年）10 月，瀾河茶商林茂堂將其茂興茶行歷年收藏的陶瓷器共 146 件，"
        "捐贈予瀾河郡教育會附設陳列館，為瀾河地區第一宗有紀錄的私人文物捐贈。",
    ),
    "CERAMICS-OVERVIEW": (
        "本館陶瓷典藏概述",
        "陶瓷典藏的基礎，是 1932 年茶商林茂堂捐贈予瀾河郡教育會陳列館的 164 件中國與日本陶瓷，"
        "戰後移交本館後通稱「林茂堂舊藏」。",
    ),
    "SOP-PRD-015": (
        "旋转式压片机清洁标准操作规程",
        "2. 清洁时机\n2.2 压片结束后，脏设备放置时间不得超过24小时，须在24小时内完成清洁。",
    ),
    "SOP-QA-050": (
        "清洁验证管理规程",
        "4. 保持时间\n4.1 脏设备保持时间（DHT）：自生产结束至开始清洁，最长48小时。"
        "本条适用于第1条所列全部设备，含压片机、包衣机。\n"
        "4.2 清洁后保持时间（CHT）：清洁完成后7天内未使用的，使用前须重新清洁。",
    ),
    # itdesk: the escalation SOP and the duty desk's card (Simplified Chinese), which
    # disagree on the days an internal post-mortem of a P1 may take
    "SOP-ESCALATION-P1": (
        "重大事件（P1/P2）升级处理 SOP",
        "4. 事件经理：P1 事件由当班值班经理担任事件经理；P2 事件由主值班工程师兼任。\n"
        "5. 复盘：P1 事件恢复后 5 日内完成内部复盘（Post-mortem），P2 事件由值班经理决定是否复盘。",
    ),
    "ESC-CARD-P1": (
        "值班速查卡（P1/P2 事件）",
        "- 重大事件电话桥由值班经理开启。\n- P1 内部复盘：事件恢复后 7 日内完成。",
    ),
    # two encyclopedia passages on fish of one genus, each naming its species' common names
    # and giving its length
    "FISH-C": (
        "黃天竺鯛",
        "黃天竺鯛，俗名大目側仔，為天竺鯛科的其中一個種。體長可達12公分。",
    ),
    "FISH-D": (
        "單線天竺鯛",
        "單線天竺鯛，俗名外斑天竺鯛、大目側仔，為天竺鯛科的其中一個種。體長可達10公分。",
    ),
    "SOP-CHT-LINE": (
        "压片线清场与清洁规程",
        "3.4 清洁完成后超过5天未使用的设备，使用前须重新清洁。",
    ),
    "HZ-LEAVE": (
        "請假規則",
        "第九條（天然災害）依政府停止上班公告辦理，當日未出勤者不扣工資。惟經主管指派從事防颱"
        "或搶修者，除依加班規定給付工資外，另發給防颱值勤津貼每日新臺幣1,000元。",
    ),
    "HZ-OT": (
        "加班管理辦法",
        "五、政府宣布停止上班之日，經主管指派留守工地執行防颱或搶修者，除依第二點發給工資外，"
        "每日另發防颱值勤津貼新臺幣800元。",
    ),
    "B-PRICE": (
        "2026 年不鏽鋼零件報價基準與交期",
        "SUS304 CNC 切削件\n標準交期 12 日，自下單次日起算。",
    ),
    "B-TITANIUM": ("鈦合金零件加工作業標準", "交期\n交期：鈦合金零件之加工交期為 25 日。"),
    "SOP-CFS": (
        "Warehouse - Felixstowe CFS",
        "2. Free time\nImport LCL cargo is stored free for 5 calendar days from devanning.",
    ),
    "TARIFF-CFS": (
        "Standard tariff 2026",
        "A. Customs brokerage\nImport declaration ........ 75.00\n\nB. Felixstowe CFS (import "
        "LCL)\nHandling ............ 18.00 per W/M\nFree time ........... 7 calendar days from "
        "devanning",
    ),
    "SOP-SCREEN": (
        "Air export - security screening",
        "4. Charges\nScreening fee GBP 0.12 per kg, minimum GBP 25.00 per consignment.",
    ),
    "TARIFF-SCREEN": (
        "Standard tariff 2026 - air",
        "C. Security\nScreening fee ...... GBP 0.15 per kg",
    ),
    "B-TI-SETUP": ("鈦合金零件加工報價說明", "二、費用\n鈦合金零件上機費為 1,500 元。"),
    "B-TI-PRICES": (
        "2026 年加工價目表",
        "一、鈦合金零件\n上機費 ........ 1,200 元\n加工交期 ........ 20 日",
    ),
    # A museum's loan contract and its schedule: the schedule names its currency once.
    "LOAN-CONTRACT": (
        "借展合約",
        "第四條\u3000保險：乙方應投保釘對釘全險。LH-1932-017 之保險金額為新臺幣 2,000,000 元；"
        "其餘展品之保險金額依附件 A。",
    ),
    "LOAN-SCHEDULE": (
        "借展合約 附件 A：借展品清單及保險估值",
        "單位：新臺幣\n序｜登錄號｜名稱｜保險金額\n1｜LH-1932-017｜青花纏枝蓮紋大盤｜2,400,000\n"
        "2｜LH-2001-045｜八仙綵（刺繡）｜800,000",
    ),
    "LOAN-SCHEDULE-BARE": (
        "借展合約 附件 A：借展品清單",
        "序｜登錄號｜名稱｜保險金額\n1｜LH-1932-017｜青花纏枝蓮紋大盤｜2,400,000",
    ),
    # A pharma contract manufacturer's quotation: the column header names the currency.
    "QUOTE-STAB": (
        "报价单（稳定性考察）",
        "序号\u3000项目\u3000单位\u3000单价（元，含税）\n1\u3000委托加工费\u3000万片\u30002,350\n"
        "2\u3000额外稳定性考察（单批单条件）\u3000批·条件\u300018,000",
    ),
    "NOTE-STAB": ("客户报价备忘", "额外稳定性考察：单批单条件报价 16,000 元。"),
    # clinic: a Markdown fee table whose header names the currency over plain integers, and a
    # front-desk notice (Hong Kong, Traditional)
    "HK-FEES": (
        "香港診所收費表（2026年4月版）",
        "適用：中環診所、旺角診所\n\n| 項目 | 收費（港幣） |\n|---|---|\n"
        "| 普通科門診（包兩日基本藥物） | 420 |\n| 流感疫苗（四價） | 260 |",
    ),
    "HK-FEES-NOTICE": ("前台通告：收費調整", "普通科門診（包兩日基本藥物）收費調整為港幣 450 元。"),
    # dealer: a labour table in NT$ per row, and a service notice
    "LAB-TXG": (
        "台中廠 工時單價表",
        "| 作業項目 | 標準工時(hr) | 工資(NT$) |\n|---|---|---|\n"
        "| 卡鉗螺栓扭力檢查 | 0.3 | 600 |\n| 前來令片更換 | 1.0 | 2000 |",
    ),
    "NOTICE-TXG": ("台中廠 服務公告", "即日起前來令片更換工資調整為 NT$ 2,200。"),
    # A rule whose condition stands on the line above its amount, under one heading.
    "SOP-RMA-RULE": (
        "退貨作業程序",
        "2. 不良品退貨\n2.1 客戶須於到貨日起 90 天內提出。\n"
        "3. 非不良品退貨 (stock return)\n3.1 到貨日起 30 天內，原廠包裝未拆封。\n"
        "3.2 收取 restocking fee 15%（以原發票金額計）。",
    ),
    "SOP-RMA-OTHER": (
        "退貨作業程序",
        "3. 非不良品退貨 (stock return)\n3.2 收取 restocking fee 15%（以原發票金額計）。\n"
        "4. 包裝\n4.1 原廠包裝未拆封者免驗。",
    ),
    "SOP-WAREHOUSE-RULE": (
        "Warehouse - import LCL",
        "5. Free time\n5.1 Applies to consolidated boxes devanned at our Tilbury shed.\n"
        "5.2 Cargo is stored free for 5 calendar days.",
    ),
    "TARIFF-WAREHOUSE": ("Tariff 2026", "Free time ........... 7 calendar days"),
    # A customer's contract and the purchase order placed under it; the order bears its own
    # number in its title, the contract never names it.
    "HY-CONTRACT": (
        "華陽科技新竹二廠機電工程承攬契約（節錄）",
        "第13條（保固叫修）\n一、一般故障：承攬人應於接獲通知後72小時內處理。\n"
        "二、緊急故障（停機、影響生產或安全者）：承攬人應於接獲通知後48小時內派員到場。",
    ),
    "HY-ORDER": (
        "華陽科技採購單 PO-HY-2026-0415（新竹二廠機電工程）",
        "附加條款：\n1. 保固期間發生停機等緊急故障時，供應商應於接獲通知後24小時內派員到場。",
    ),
    "HY-ORDER-SAME": (
        "華陽科技採購單 PO-HY-2026-0415（新竹二廠機電工程）",
        "附加條款：\n1. 保固期間發生停機等緊急故障時，供應商應於接獲通知後48小時內派員到場。",
    ),
    "HY-SITE-NOTE": (
        "華陽科技新竹二廠駐廠備忘",
        "緊急故障（停機）時，駐廠人員應於接獲通知後36小時內派員到場。",
    ),
    "KES-TERMS": (
        "Kestrel Foods - terms of carriage",
        "4. Claims\n4.1 Loss or damage must be notified in writing within 14 days of delivery.",
    ),
    "KES-BOOKING": (
        "Booking confirmation BKG-88231 (Kestrel Foods)",
        "Special terms:\n1. Loss or damage must be notified in writing within 7 days of delivery.",
    ),
    # Two museum texts on one family's donation, both writing the family's name in full.
    "XU-DONATION": (
        "徐氏家族捐贈閩南陶瓷",
        "2003 年，地方望族徐氏家族將祖厝所藏閩南日用陶瓷共 212 件捐贈本館。",
    ),
    "XU-OVERVIEW": (
        "閩南日用陶瓷典藏",
        "本館閩南日用陶瓷以 2003 年徐氏家族捐贈的 221 件為主，多為碗、盤與醬缸。",
    ),
    "KES-BOOKING-BODY": (
        "Booking confirmation (Kestrel Foods)",
        "Ref BKG-88231\nSpecial terms:\n1. Loss or damage must be notified in writing within 7 "
        "days of delivery.",
    ),
    "SUS304-SHEET": ("SUS304 切削件報價", "交期\n標準交期 12 日，自下單次日起算。"),
    # A fastener maker's yearly contract and quote for one furniture customer (Traditional
    # Chinese), and an electronics distributor's price list and LTA: each line opens with the part,
    # and the clause of its price does not repeat it.
    "TCF-CONTRACT": (
        "台中木藝家具 2026 年度供貨合約（含價格附件）",
        "年度供貨合約\n價格附件：M6×30 十字沉頭機械螺絲 黑鋅，單價 NT$ 0.45／支（未稅）。",
    ),
    "TCF-QUOTE": (
        "台中木藝家具 2026 年度報價單 Q-26-0008",
        "報價單 Q-26-0008\n品項：M6×30 十字沉頭機械螺絲 黑鋅，每千支 NT$ 420（未稅）。",
    ),
    "DIST-PRICES": (
        "2026 Q4 牌價表",
        "價格階梯（USD／pcs）\nSTM32G071RBT6 捲帶包裝，2,000 pcs 以上單價 US$1.85。",
    ),
    "DIST-LTA": (
        "曜騰科技 LTA 合約附件",
        "附件一\nSTM32G071RBT6 捲帶包裝，LTA 數量 2,000 pcs，單價 US$1.92。",
    ),
    # A food plant's metal-detection SOP, whose table of lines a chunk may cut after its first
    # row, and the Line 4 work instruction, which tests every 2 hours.
    "SOP-METAL": (
        "HACCP CCP3 - Metal detection and X-ray",
        "1. Metal detector test pieces\nCertified test pieces, passed in turn at the leading "
        "edge, middle and trailing edge of a pack.\n"
        "| Line | Detector | Ferrous | Non-ferrous | Stainless 316 | Test frequency |\n"
        "| L1 Bakery | Loma IQ4 | 2.0 mm | 2.5 mm | 3.0 mm | every 60 min |\n"
        "| L3 Sandwiches | Mettler Profile | 1.5 mm | 2.0 mm | 2.5 mm | every 60 min |\n"
        "| L4 Ready meals (CPET trays) | CEIA THS | 2.5 mm | 3.0 mm | 3.5 mm | every 60 min |\n\n"
        "2. X-ray (foil trays)\nL5 foil-tray meals are inspected by X-ray XR-1.",
    ),
    "WI-L4-PACK": (
        "Work instruction - Line 4 ready meal assembly and tray sealing",
        "2. During the run\n- Metal detector (CEIA THS): test with the Fe, non-Fe and stainless "
        "test pieces at start-up, every 2 hours, and at each changeover. Record on MD-L4.",
    ),
    # A Hong Kong property manager's notice on lift No. 2, whose English line a chunk may
    # start inside, and the owners' minutes, which state only their meeting's date.
    "KF-LIFT-NOTICE": (
        "景峰大廈通告：2號升降機更換曳引鋼纜工程",
        "景峰大廈管理處通告\n日期：2026年11月18日\n\n事由：2號升降機更換曳引鋼纜工程\n\n"
        "Notice: Lift No. 2 (odd floors) will be out of service from Monday 23 November 2026 "
        "for the replacement of its hoisting ropes and is expected to resume service before "
        "6:00 p.m. on Friday 18 December 2026. Lift No. 1 remains in service.",
    ),
    "KF-MINUTES": (
        "景峰大廈法團管理委員會2026年第三次會議紀錄（2026年9月24日）",
        "管理委員會2026年第三次會議紀錄\n日期：2026年9月24日（星期四）晚上8時\n\n3. 2號升降機\n"
        "管理公司報告2號升降機曳引鋼纜須更換，工程將於11月下旬展開，為期約4星期。",
    ),
    # The same manager's car park terms: a table of estates a chunk may start inside.
    "SOP-CARPARK": (
        "Car Park Licence Terms (Version 2)",
        "2. Monthly licence fees\n| Estate | Vehicle type | Monthly fee |\n|---|---|---|\n"
        "| Hoi Wan Court | Private car | HK$3,200 |\n| Hoi Wan Court | Motorcycle | HK$800 |\n"
        "| King Fung Mansion | Private car | HK$3,800 |\n\n3. Payment\n3.1 The monthly fee "
        "is payable in advance.",
    ),
    # An HR rule and an expense rule (Traditional Chinese): the travel rule's articles all say
    # 出差 under one title, and two of them state a number of days.
    "HZ-TRAVEL": (
        "國內出差旅費報支辦法（115年7月1日修正）",
        "第五條（長期出差）\n連續出差逾14日者，自第15日起日支費按八折計給；住宿費上限不變。\n\n"
        "第六條（報支期限）\n出差結束後30日內，檢附出差申請單及單據於系統報支。",
    ),
    "HZ-EXPENSE": (
        "費用報銷作業要點（114年6月1日施行）",
        "一、報銷期限\n一般費用應於支出之日起30日內檢據報銷；差旅費應於出差返回後14日內檢據報支。",
    ),
    # A service contract and an order form (Simplified Chinese): every clause of the contract's
    # credit section says 服务抵扣, and only one states the cap.
    "CT-HUAXIN": (
        "华信证券 SaaS 服务合同",
        "3. 服务抵扣：月度可用性低于 99.95% 但不低于 99.5% 的，抵扣当月服务费的 10%；低于 99.5% "
        "的，抵扣当月服务费的 25%。\n4. 抵扣上限：每月服务抵扣合计不超过当月服务费的 50%。\n"
        "5. 申请方式：甲方须在事件结束后 30 日内书面申请服务抵扣，逾期视为放弃。",
    ),
    "ORD-HUAXIN": ("华信证券 2026 年度订单", "特别约定：服务抵扣每月合计最高为当月服务费的 30%。"),
    # A car dealer's fleet contract (Traditional Chinese) and the account's English summary:
    # each states the labour discount before the parts discount.
    "CT-FLEET": (
        "車隊維修保養合約　速聯租賁",
        "第 3 條 工資：依各廠工時單價打 9 折。\n第 4 條 料件：依原廠建議售價打 88 折。",
    ),
    "FLEET-SUMMARY-EN": (
        "Fleet account summary - SwiftLink",
        "- Labour: 10% off the branch labour rate.\n- Parts: 15% off list price.",
    ),
    # A supplier SOP (Simplified Chinese) whose second rule's sentence ends on an audit.
    "SOP-QA-040-B": (
        "供应商确认与管理规程",
        "3. 定期复评\n3.1 A类供应商每24个月进行一次现场审计。\n"
        "3.2 B类供应商每36个月进行一次书面审计；近12个月到货拒收≥2批的，应增加现场审计。",
    ),
}


def _verified(document_id: str, customer_id: str | None = None) -> Verified:
    title, body = DOCS[document_id]
    return Verified(
        document_id=document_id,
        version=1,
        title=title,
        body=body,
        content_hash="sha256:test",
        knowledge_class="fact",
        doc_type="sop",
        customer_id=customer_id,
        valid_from=date(2026, 1, 1),
        valid_to=None,
    )


def _evidence(doc: Verified) -> Evidence:
    return Evidence(
        evidence_id=evidence_id_for(doc.document_id, 1, 0, len(doc.body)),
        document_id=doc.document_id,
        version=1,
        chunk_id=f"T/{doc.document_id}@1#0",
        knowledge_class="fact",
        doc_type="sop",
        title=doc.title,
        start=0,
        end=len(doc.body),
        quote=doc.body,
        content_hash=doc.content_hash,
        customer_id=doc.customer_id,
    )


def conflicts(
    query: str,
    *document_ids: str,
    customers: dict[str, str] | None = None,
    chunk_starts: dict[str, str] | None = None,
    chunk_ends: dict[str, str] | None = None,
    similarity=None,
):
    """`chunk_starts` / `chunk_ends`: a document's retrieved chunk starts at / ends after the
    text given (else it is the whole body). `similarity`: the retrieval's, chunk texts against
    the query (`embedded_similarity`)."""
    docs = {d: _verified(d, (customers or {}).get(d)) for d in document_ids}
    evidence = [_evidence(doc) for doc in docs.values()]
    texts = [text.normalize(f"{t}\n{b}") for t, b in DOCS.values()]
    units = [text.TextUnits.of(t) for t in texts]
    profile = answerability.profile(
        query, lambda u: answerability.document_frequency(u, texts, units), len(texts)
    )
    chunks = {}
    for e in evidence:
        body = docs[e.document_id].body
        start, end = 0, e.end
        if e.document_id in (chunk_starts or {}):
            start = body.index(chunk_starts[e.document_id])
        if e.document_id in (chunk_ends or {}):
            cut = chunk_ends[e.document_id]
            end = body.index(cut) + len(cut)
        chunks[e.chunk_id] = ChunkRow(e.chunk_id, e.document_id, 1, start, end, "sha256:test")
    found, cited = statements.question_conflicts(
        profile,
        evidence,
        relevant=frozenset(e.evidence_id for e in evidence),
        lookup=lambda ids: {i: docs[i] for i in ids if i in docs},
        chunk_of=chunks.get,
        similarity=similarity,
    )
    return found, cited


def values_of(found) -> list[dict[str, str]]:
    """Each conflict's values, by the document stating them."""
    return [{v.document_id: v.value for v in c.values} for c in found]


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder()


def embedded_similarity(embedder, query: str):
    """What the retrieval service passes: cosine similarity of a chunk's texts to the query in
    the offline embedding (services.retrieval.service `_similarity`)."""
    vector = embedder.embed_query(query)
    return lambda _chunk_id, texts: [float(row @ vector) for row in embedder.embed(texts)]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        (
            "How many hours before the CY cut-off has the verified gross mass to be with the "
            "carrier?",
            ("SOP-SEA", "NOTE-CUTOFF"),
            {"SOP-SEA": "24 hour", "NOTE-CUTOFF": "48 hour"},
        ),
        (
            "原料药供应商的现场审计多久要做一次？",
            ("QM-001", "SOP-QA-040"),
            {"QM-001": "36 month", "SOP-QA-040": "24 month"},
        ),
        (
            "非不良品退貨的 restocking fee 要收幾 %？",
            ("SOP-RMA", "POLICY-PRICING"),
            {"SOP-RMA": "15 %", "POLICY-PRICING": "20 %"},
        ),
    ],
)
def test_two_documents_stating_the_asked_quantity_differently_conflict(query, documents, values):
    found, cited = conflicts(query, *documents)
    assert len(found) == 1
    assert values_of(found)[0] == values
    # Each side is cited as the unit that states it, and that unit is handed back as evidence.
    assert {v.evidence_id for v in found[0].values} == {e.evidence_id for e in cited}
    for value in found[0].values:
        _title, body = DOCS[value.document_id]
        assert value.quote in body and value.value.split()[0] in value.quote


def test_two_documents_stating_another_time_of_day_for_the_asked_one_conflict():
    # hkrepair: 「做到幾點」 asks for a time of day; the SOP closes the hotline at 6 pm, the FAQ
    # at 7 pm (Chinese hours, read with their part of the day)
    found, _cited = conflicts("維修熱線星期六做到幾點？", "SOP-HOURS", "FAQ-CS")
    assert len(found) == 1
    assert values_of(found)[0] == {
        "SOP-HOURS": "上午 9 时至下午 6 时",
        "FAQ-CS": "上午 9 时至晚上 7 时",
    }


def test_a_question_asking_where_compares_no_amount():
    # the two cut-off notes disagree on the VGM deadline, which a question about where the VGM
    # goes does not ask (CMRC 2018's 「德龙烟铁路经过哪些地方？」 likewise: two passages giving the
    # railway's lengths do not disagree on the places it passes)
    assert (
        conflicts(
            "Where does the verified gross mass go before the CY cut-off?", "SOP-SEA", "NOTE-CUTOFF"
        )[0]
        == []
    )


def test_the_same_amount_in_another_unit_is_no_conflict():
    found, _ = conflicts(
        "How many hours before the CY cut-off must the VGM reach the carrier?",
        "SOP-SEA",
        "NOTE-CUTOFF-SAME",
    )
    assert found == []


def test_a_quantity_said_of_something_the_question_does_not_name_is_not_compared():
    # The titanium standard's lead time is said of titanium parts; the question asks the
    # standard lead time, which only the price sheet states.
    found, _ = conflicts("標準交期是幾天", "B-PRICE", "B-TITANIUM")
    assert found == []


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # fastener: the question says neither 毛重 nor "gross weight"; the SOP's 25 kg and the
        # instruction's 20 kg are both said of a carton's gross weight
        (
            "外銷紙箱 一箱最多幾公斤",
            ("SOP-PACKING-ZH", "WI-EXPORT-PACKING"),
            {"SOP-PACKING-ZH": "25 kg", "WI-EXPORT-PACKING": "20 kg"},
        ),
        # a forwarder's warehouse: likewise a pallet's, 「每托毛重」 and "gross weight per pallet"
        (
            "出口托盘一托最多几公斤？",
            ("SOP-WH-EXPORT", "GUIDE-SHIPPER-PACKING"),
            {"SOP-WH-EXPORT": "1000 kg", "GUIDE-SHIPPER-PACKING": "800 kg"},
        ),
        # itdesk: asked in English; both cards say 「事件恢复后」 of the days, which the question
        # does not
        (
            "Once a P1 is fixed, how many days do we have to finish the internal post-mortem?",
            ("SOP-ESCALATION-P1", "ESC-CARD-P1"),
            {"SOP-ESCALATION-P1": "5 day", "ESC-CARD-P1": "7 day"},
        ),
    ],
)
def test_what_both_quantities_are_said_of_need_not_be_in_the_question(query, documents, values):
    found, _cited = conflicts(query, *documents)
    assert values_of(found) == [values]


def test_what_only_one_quantity_is_said_of_still_tells_them_apart():
    # pharma: a dirty machine's hold time (24 hours) is not the clean one's (7 days), though
    # both are said of cleaning
    question = "设备清洁完一直没用，放几天以后就得重新洗？"
    assert conflicts(question, "SOP-PRD-015", "SOP-QA-050")[0] == []
    # CMRC 2018: asked for a fish's common name, two lengths both said of 體長 are not compared
    assert conflicts("黃天竺鯛的俗名是什麼？", "FISH-C", "FISH-D")[0] == []


def test_answers_that_never_name_the_question_s_subject_do_not_conflict():
    # Two encyclopedia passages, each giving the length of its own species; the question asks
    # the length of a third one. Different values, same attribute, no conflict.
    found, _ = conflicts("膨趾膜鱈的體長可達多少公分？", "FISH-A", "FISH-B")
    assert found == []


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # "starts": a word nothing readable says, and an everyday one, is nobody's subject; the
        # tariff's row "Handling .... 18.00 per W/M" is a value under the heading "B. Felixstowe
        # CFS (import LCL)", not a heading of its own.
        (
            "How many free days does import LCL get at the Felixstowe CFS before storage starts?",
            ("SOP-CFS", "TARIFF-CFS"),
            {"SOP-CFS": "5 day", "TARIFF-CFS": "7 day"},
        ),
        # The price list's row 「上機費 ...... 1,200 元」 states an amount: the heading it stands
        # under (鈦合金零件) stays the heading of the lead time below it.
        (
            "鈦合金零件的加工交期是幾天？",
            ("B-TITANIUM", "B-TI-PRICES"),
            {"B-TITANIUM": "25 day", "B-TI-PRICES": "20 day"},
        ),
    ],
)
def test_a_price_list_row_is_read_under_its_heading(query, documents, values):
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


@pytest.mark.parametrize(
    ("query", "documents", "amounts"),
    [
        (
            "How much is the screening fee per kg?",
            ("SOP-SCREEN", "TARIFF-SCREEN"),
            ("0.12", "0.15"),
        ),
        ("鈦合金零件的上機費是多少錢？", ("B-TI-SETUP", "B-TI-PRICES"), ("1500", "1200")),
    ],
)
def test_a_question_asking_for_money_compares_amounts_in_each_currency(query, documents, amounts):
    # Money is one measure per currency ("money:gbp"); a question asking for money compares
    # those, not only shares of a price.
    found, _ = conflicts(query, *documents)
    assert len(found) == 1
    values = values_of(found)[0]
    assert set(values) == set(documents)
    assert [amount in values[d] for d, amount in zip(documents, amounts, strict=True)] == [1, 1]


@pytest.mark.parametrize(
    ("clause", "currency"),
    [
        # Simplified Chinese writes the renminbi as 元: a Shenzhen clinic's price notice, an IT
        # service desk's on-call allowance
        ("| 普通门诊诊金 | 次 | 350 元 |", "CNY"),
        ("工作日：主值班每天 150 元，备值班每天 80 元。", "CNY"),
        # Traditional Chinese in Taiwan the New Taiwan dollar: a contractor's travel rules
        ("第四條（日支費）\n膳雜費每日新臺幣600元；住宿每晚上限 2,400 元。", "TWD"),
        # a currency named with the amount says which, in either script
        ("私家車月租車位：港幣3,500元", "HKD"),
        ("年费为人民币 150,000 元/年", "CNY"),
    ],
)
def test_an_amount_in_yuan_is_in_the_currency_of_its_script(clause, currency):
    assert {q.measure for q in statements.quantities_in(clause)} == {f"money:{currency}"}


def test_a_price_notice_in_yuan_and_a_price_list_in_renminbi_are_compared():
    # clinic: the Shenzhen clinics' price notice (「价格（元）」) and their fee schedule (¥)
    found, _ = conflicts("福田普通门诊诊金现在收多少钱？", "SZ-PRICE-NOTICE", "SZ-FEES")
    assert values_of(found) == [{"SZ-PRICE-NOTICE": "350 CNY", "SZ-FEES": "380 CNY"}]


def test_a_calendar_year_is_not_a_duration():
    assert statements.quantities_in("但在2002年時配合東北新幹線通車") == []
    assert [q.shown for q in statements.quantities_in("紀錄保存至少5年")] == ["5 year"]


def test_documents_of_different_customer_scopes_never_conflict():
    found, _ = conflicts(
        "非不良品退貨的 restocking fee 要收幾 %？",
        "SOP-RMA",
        "POLICY-PRICING",
        customers={"POLICY-PRICING": "C-ACME"},
    )
    assert found == []


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["3. Verified Gross Mass (VGM)"], {"vgm": "verified gross mass"}),
        (["4.1 脏设备保持时间（DHT）：自生产结束至开始清洁"], {"dht": "脏设备保持时间"}),
        (["Cargo from a Known Consignor (KC) goes to the airline"], {"kc": "known consignor"}),
        # Initials that do not spell the abbreviation define nothing.
        (["the shipment value (USD)"], {}),
    ],
)
def test_abbreviations_are_read_from_their_definitions(texts, expected):
    assert statements.acronyms(texts) == expected


@pytest.mark.parametrize(
    ("clause", "shown"),
    [
        ("Import LCL cargo is stored free for 5 calendar days", ["5 day"]),
        ("48 hrs before CY cut-off", ["48 hour"]),
        ("现场审计周期不超过36个月。", ["36 month"]),
        ("收取 restocking fee 15%（以原發票金額計）", ["15 %"]),
        ("SUS304 CNC 切削件 1,200 件", ["1200 pcs"]),
        ("有效日期 2026-01-01", ["2026-01-01"]),  # a date, read as a date (moments.py)
    ],
)
def test_quantities_are_read_wherever_they_stand_in_a_clause(clause, shown):
    assert [q.shown for q in statements.quantities_in(clause)] == shown


@pytest.mark.parametrize(
    ("clause", "measure", "amount"),
    [
        # a currency named before the amount decides it, not the 元 after it: a Hong Kong
        # estate's notice against its English price table (HK$3,200)
        ("| 私家車月租車位 | 每月港幣3,500元 |", "money:HKD", 3500.0),
        ("| Hoi Wan Court | Private car | HK$3,200 |", "money:HKD", 3200.0),
        ("住宿費上限為新臺幣3,000元", "money:TWD", 3000.0),  # a Taiwanese travel rule
        ("月服务费人民币 85,000 元", "money:CNY", 85000.0),
        # lengths and masses spelled out (a food plant's glass rule; a crane note)
        ("All exposed product within 2 metres of the breakage is scrapped", "length", 2000.0),
        ("within a 3 metre radius of the breakage", "length", 3000.0),
        ("周围2米以内的产品", "length", 2000.0),
        ("the heaviest lift is 12 tonnes", "mass", 12_000_000.0),
        # volumes: a dealer's oil capacity in a Chinese SOP and an English bulletin; a fridge's
        # capacity in a Hong Kong retailer's rules and in its English manual
        ("4.3 Tera MY2026 2.0T：4.8 公升", "volume", 4800.0),
        ("2. Engine oil capacity with filter change: 5.2 L", "volume", 5200.0),
        ("雪櫃（300 公升以上）", "volume", 300_000.0),
        ("1. Capacity: 520 L gross", "volume", 520_000.0),
        # illuminance and exposure (a museum's light limits), colony counts (a food plant)
        ("照度不得超過 50 lux", "lux", 50.0),
        ("每年累計曝光量不得超過 120,000 lux·h", "lux·h", 120_000.0),
        ("Listeria monocytogenes < 20 cfu/g", "cfu", 20.0),
    ],
)
def test_currencies_and_units_are_read_as_they_are_written(clause, measure, amount):
    found = statements.quantities_in(clause)
    assert [(q.measure, q.amount) for q in found] == [(measure, amount)]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # museum: the question names the donor; neither count is said of what it says, but the
        # two sentences say one thing (1932, 林茂堂, 捐贈, 教育會, 陳列館) with two counts
        (
            "1932年林茂堂捐的那批陶瓷一共是幾件？",
            ("LIN-DONATION", "CERAMICS-OVERVIEW"),
            {"LIN-DONATION": "146 pcs", "CERAMICS-OVERVIEW": "164 pcs"},
        ),
        # pharma: a chatty question whose 「壓完」 nothing readable says; a verb names no subject
        (
            "压片机压完片以后，最多能放多久再开始清洁？",
            ("SOP-PRD-015", "SOP-QA-050"),
            {"SOP-PRD-015": "24 hour", "SOP-QA-050": "48 hour"},
        ),
        # hrlegal: the leave rules and the overtime rules both grant a typhoon-duty allowance
        (
            "颱風停班那天被指派留守工地，防颱值勤津貼一天發多少？",
            ("HZ-LEAVE", "HZ-OT"),
            {"HZ-LEAVE": "1000 TWD", "HZ-OT": "800 TWD"},
        ),
    ],
)
def test_two_documents_restating_one_sentence_with_another_amount_conflict(
    query, documents, values
):
    found, _ = conflicts(query, *documents)
    assert len(found) == 1
    assert values_of(found)[0] == values


def test_restated_sentences_about_something_else_than_the_question_do_not_conflict():
    # distributor: "handling fee" is about handling; two restocking fees say one thing with two
    # rates, but the question's topic is in neither
    found, _ = conflicts("handling fee", "SOP-RMA", "POLICY-PRICING")
    assert found == []
    # CMRC 2018: two eels' lengths are said alike (體長可達 … 公分); the question asks what one
    # of them eats, and its lengths are not what it asks about
    found, _ = conflicts("長齒鋸犁鰻以什麼為食？", "FISH-A", "FISH-B")
    assert found == []


def test_a_statement_is_chosen_by_its_whole_sentence():
    # pharma: 「清洁完成后7天内未使用的，使用前须重新清洁」 answers the clean hold question in
    # its second clause; the dirty hold time (48 hours, first in the document) does not
    found, _ = conflicts("设备清洁完一直没用，放几天以后就得重新洗？", "SOP-QA-050", "SOP-CHT-LINE")
    assert values_of(found) == [{"SOP-QA-050": "7 day", "SOP-CHT-LINE": "5 day"}]


@pytest.mark.parametrize(
    "text",
    [
        "防水工程：112年10月15日至117年10月14日",  # hrlegal: a warranty period in ROC dates
        "民國115年7月1日修正施行",  # hrlegal
        "决赛周于2008年5月28日至6月8日于越南胡志明市举行",  # CMRC 2018
        "11月28日，鑫诺卫星通信公司正式宣布",  # CMRC 2018
    ],
)
def test_dates_with_a_month_and_day_are_not_durations(text):
    assert {q.measure for q in statements.quantities_in(text)} == {"date"}


@pytest.mark.parametrize(
    ("question", "unit", "names_a_thing"),
    [
        ("压片机压完片以后，最多能放多久再开始清洁？", "压完", False),  # pharma: finished pressing
        ("关键物料厂家的现场复审周期是几年？", "复审", False),  # pharma: re-audit, a verb here
        ("膨趾膜鳕的体长可达多少公分？", "膨趾膜鳕", True),  # CMRC 2018: a fish
        ("额亦都的父亲是谁？", "额亦都", True),  # CMRC 2018: a person
    ],
)
def test_a_word_nothing_readable_says_names_the_subject_only_as_a_noun(
    question, unit, names_a_thing
):
    assert text.nominal(unit, text.normalize(question)) is names_a_thing


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # a currency named once above the table, and a column header naming a price
        (
            "LH-1932-017 的保險金額是多少？",
            ("LOAN-CONTRACT", "LOAN-SCHEDULE"),
            {"LOAN-CONTRACT": "2000000 TWD", "LOAN-SCHEDULE": "2,400,000 TWD"},
        ),
        # the currency in the column's own header (元 of a Simplified-Chinese quote: renminbi)
        (
            "额外稳定性考察单批单条件多少钱？",
            ("QUOTE-STAB", "NOTE-STAB"),
            {"QUOTE-STAB": "18,000 CNY", "NOTE-STAB": "16000 CNY"},
        ),
    ],
)
def test_a_table_s_bare_amounts_are_money_under_a_header_that_names_a_price(
    query, documents, values
):
    found, cited = conflicts(query, *documents)
    assert values_of(found) == [values]
    table = next(e for e in cited if e.document_id in ("LOAN-SCHEDULE", "QUOTE-STAB"))
    assert "｜" in table.quote or "\u3000" in table.quote  # the row itself is cited


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        (
            "普通科門診包兩日藥幾多錢？",
            ("HK-FEES", "HK-FEES-NOTICE"),
            {"HK-FEES": "420 HKD", "HK-FEES-NOTICE": "450 HKD"},
        ),
        (
            "台中廠換前來令片工資多少？",
            ("LAB-TXG", "NOTICE-TXG"),
            {"LAB-TXG": "2000 TWD", "NOTICE-TXG": "2200 TWD"},
        ),
    ],
)
def test_every_number_under_a_header_naming_its_currency_is_an_amount(query, documents, values):
    # 420 under 「收費（港幣）」 is not in a price list's form (no thousands, no cents): the header
    # says what it is. A Markdown table's rule line keeps the header it underlines.
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("2. Boom lifts and telehandlers: PM every 250 engine hours.", 250.0),  # chatlog
        ("7.2 The Loda 60,000 km service is booked as 3.5 labour hours.", 3.5),  # dealer
    ],
)
def test_hours_counted_of_work_or_of_running_are_durations(text, hours):
    durations = [q for q in statements.quantities_in(text) if q.measure == "duration"]
    assert len(durations) == 1
    assert durations[0].shown == f"{hours:g} hour"


def test_a_table_that_never_names_its_currency_states_no_money():
    found, _ = conflicts("LH-1932-017 的保險金額是多少？", "LOAN-CONTRACT", "LOAN-SCHEDULE-BARE")
    assert found == []


def test_article_numbers_are_not_what_a_statement_is_about():
    assert statements._ENUMERATOR.sub(" ", "第四条 保险").split() == ["保险"]
    assert statements._ENUMERATOR.sub(" ", "article 7 liability").split() == ["liability"]
    assert statements._ENUMERATOR.sub(" ", "第四季 营收").split() == ["第四季", "营收"]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        (
            "客戶要退沒拆封的良品，restocking fee 要收幾 %？",
            ("SOP-RMA-RULE", "POLICY-PRICING"),
            {"SOP-RMA-RULE": "15 %", "POLICY-PRICING": "20 %"},
        ),
        (
            "How many free days do consolidated boxes get at Tilbury?",
            ("SOP-WAREHOUSE-RULE", "TARIFF-WAREHOUSE"),
            {"SOP-WAREHOUSE-RULE": "5 day", "TARIFF-WAREHOUSE": "7 day"},
        ),
    ],
)
def test_the_subject_may_be_named_by_a_condition_under_the_same_heading(query, documents, values):
    # The question's subject (拆封, Tilbury) is in the line above the amount, in its section.
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


def test_a_subject_named_under_another_heading_does_not_count():
    found, _ = conflicts(
        "客戶要退沒拆封的良品，restocking fee 要收幾 %？", "SOP-RMA-OTHER", "POLICY-PRICING"
    )
    assert found == []


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        (
            "華陽二廠空調箱停機，我們要在幾小時內派人到場？PO-HY-2026-0415 有沒有另外規定？",
            ("HY-CONTRACT", "HY-ORDER"),
            {"HY-CONTRACT": "48 hour", "HY-ORDER": "24 hour"},
        ),
        (
            "Within how many days must Kestrel notify loss or damage? Does BKG-88231 change that?",
            ("KES-TERMS", "KES-BOOKING"),
            {"KES-TERMS": "14 day", "KES-BOOKING": "7 day"},
        ),
    ],
)
def test_an_identifier_a_document_bears_in_its_title_names_that_document(query, documents, values):
    # The order (booking) is named by its number; the contract (terms) it departs from need
    # not name it to answer the same question. Both are one customer's documents.
    customers = dict.fromkeys(documents, "C-1")
    found, _ = conflicts(query, *documents, customers=customers)
    assert values_of(found) == [values]


def test_an_identifier_in_no_answer_s_title_must_be_named_by_both_answers():
    # The booking's number is in its body only: the terms, which never name it, are not
    # compared with it.
    found, _ = conflicts(
        "Within how many days must loss be notified under BKG-88231?",
        "KES-TERMS",
        "KES-BOOKING-BODY",
    )
    assert found == []


def test_a_document_titled_by_an_identifier_is_still_compared_only_on_what_is_asked():
    # SUS304 names the price sheet, but the titanium standard's lead time is said of titanium
    # parts, which the question never names.
    found, _ = conflicts("SUS304 的標準交期是幾天？", "SUS304-SHEET", "B-TITANIUM")
    assert found == []


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # hrlegal: 停班 is what the rules call 停止上班
        (
            "颱風停班那天被主管叫回工地留守，除了加班費之外還有值勤津貼嗎？一天多少？",
            ("HZ-LEAVE", "HZ-OT"),
            {"HZ-LEAVE": "1000 TWD", "HZ-OT": "800 TWD"},
        ),
        # museum: 徐家 is the 徐氏家族 both texts name
        (
            "徐家捐的那批閩南陶瓷一共有幾件？",
            ("XU-DONATION", "XU-OVERVIEW"),
            {"XU-DONATION": "212 pcs", "XU-OVERVIEW": "221 pcs"},
        ),
    ],
)
def test_a_subject_the_question_shortens_is_named_by_its_longer_form(query, documents, values):
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


@pytest.mark.parametrize(
    ("unit", "written", "said"),
    [
        ("停班", "政府宣布停止上班之日", True),  # an HR rule (Traditional)
        ("徐家", "地方望族徐氏家族捐贈閩南日用陶瓷 212 件", True),  # a museum's history
        ("劳保", "公司为员工投保劳工保险", True),  # Simplified
        ("停班", "停工三日後再上班", False),  # more than two characters between
        ("家徐", "徐氏家族", False),  # not in the word's order
    ],
)
def test_an_answer_says_a_chinese_word_where_it_writes_the_longer_word(unit, written, said):
    normalized = text.normalize(written)
    assert statements._said(text.normalize(unit), normalized, text.TextUnits.of(normalized)) is said


def test_an_identifier_names_only_the_document_that_bears_it_in_a_pair():
    # The order bears its number and agrees with the contract (48 hours); the site note says
    # 36. The note is compared with the order, which its number names; the contract and the
    # note, neither of which bears that number, are not compared on the order's question.
    query = "華陽二廠空調箱停機，我們要在幾小時內派人到場？PO-HY-2026-0415 有沒有另外規定？"
    documents = ("HY-CONTRACT", "HY-ORDER-SAME", "HY-SITE-NOTE")
    found, _ = conflicts(query, *documents, customers=dict.fromkeys(documents, "C-1"))
    assert values_of(found) == [{"HY-ORDER-SAME": "48 hour", "HY-SITE-NOTE": "36 hour"}]


def test_a_row_is_read_with_the_rest_of_its_table_and_for_the_member_of_a_series_asked():
    # The chunk retrieved holds the table's header and its L1 row only; the L4 row, which
    # answers for Line 4, is in the next chunk. The table is read whole, and the rows of other
    # lines are not answers: the L4 row's 60 minutes disagree with the work instruction's 2
    # hours (the detector's model in brackets is an aside, not what the 2 hours are said of).
    found, cited = conflicts(
        "How often do we test the metal detector on Line 4?",
        "SOP-METAL",
        "WI-L4-PACK",
        chunk_ends={"SOP-METAL": "every 60 min |"},
    )
    assert values_of(found) == [{"SOP-METAL": "60 minute", "WI-L4-PACK": "2 hour"}]
    assert any(e.quote.startswith("| L4 Ready meals") for e in cited)


def test_a_line_a_chunk_starts_inside_is_read_whole_for_the_members_it_names():
    # The chunk starts at "2 (odd floors)…": cut there, the line names lift No. 1 only, but
    # whole it names No. 2, the lift asked about, whose return date it states.
    doc = _verified("KF-LIFT-NOTICE")
    item = _evidence(doc)
    start = doc.body.index("2 (odd floors)")
    chunk = ChunkRow(item.chunk_id, doc.document_id, 1, start, len(doc.body), "sha256:test")
    reading = _reading("景峰大廈2號 lift 幾時整好？")
    sections = statements._sections([item], {item.chunk_id: chunk}.get, doc.body)
    answer = statements._answer(reading, doc, [item], sections)
    assert answer is not None
    assert answer.evidence.quote.startswith("2 (odd floors)")
    # A question about lift No. 3 is not answered by a line about lifts No. 2 and No. 1.
    assert (
        statements._answer(_reading("景峰大廈3號 lift 幾時整好？"), doc, [item], sections) is None
    )


@pytest.mark.parametrize(
    ("document_id", "starts_at", "first", "last"),
    [
        # a chunk that ends after a table's first row takes the rows after it
        ("SOP-METAL", "1. Metal", "1. Metal", "every 60 min |\n\n"),
        # a chunk that starts inside a table takes its header and the rows before
        ("SOP-CARPARK", "| Hoi Wan Court | Motorcycle", "| Estate", "HK$3,800 |"),
    ],
)
def test_a_section_is_widened_to_the_whole_of_a_table_it_cuts(document_id, starts_at, first, last):
    _title, body = DOCS[document_id]
    start = body.index(starts_at)
    row_end = body.index("\n", body.index("|", start))  # the section ends after one row
    widened_start, widened_end = spans.whole_tables(body, start, row_end)
    assert body[widened_start:].startswith(first)
    assert body[:widened_end].endswith(last.rstrip("\n"))
    assert "Payment" not in body[widened_start:widened_end]
    assert "X-ray" not in body[widened_start:widened_end]


@pytest.mark.parametrize(
    ("label", "clause", "said", "aside"),
    [
        # a food plant's work instruction: the detector's model is in brackets
        ("- Metal detector (CEIA THS)", " every 2 hours,", {"metal", "detector"}, "ceia"),
        # a pharmaceutical cleaning SOP: the abbreviation is in full-width brackets
        (
            "4.1 脏设备保持时间（DHT）",
            "自生产结束至开始清洁，最长48小时。",
            {"设备", "保持", "时间"},
            "dht",
        ),
    ],
)
def test_what_brackets_hold_is_not_what_a_quantity_is_said_of(label, clause, said, aside):
    words = statements._attribute_words(_reading("How often?"), "T/X@1#0", label, clause)
    assert said <= words
    assert not any(aside in word for word in words)
    # without the brackets the aside is read as written
    bare = label.replace("(", "").replace(")", "").replace("（", " ").replace("）", "")
    assert any(
        aside in word
        for word in statements._attribute_words(_reading("How often?"), "T/X@1#0", bare, clause)
    )


def _reading(query: str) -> statements._Reading:
    texts = [text.normalize(f"{t}\n{b}") for t, b in DOCS.values()]
    units = [text.TextUnits.of(t) for t in texts]
    profile = answerability.profile(
        query, lambda u: answerability.document_frequency(u, texts, units), len(texts)
    )
    return statements._Reading(
        profile,
        statements._asked_measures(profile),
        {},
        statements.TextAnalyses(0),
        asked=frozenset(),
        series=relevance.asked_series(query),
    )


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # every article of the travel rule says 出差 under a title with 旅費: article six states
        # the deadline in its own words (結束後…報支 for 回來之後…報掉)
        (
            "出差回來之後，旅費要在幾天內報掉？",
            ("HZ-TRAVEL", "HZ-EXPENSE"),
            {"HZ-TRAVEL": "30 day", "HZ-EXPENSE": "14 day"},
        ),
        # every clause of the credit section says 服务抵扣: the cap (上限, 不超过) is the one the
        # question asks for (最多), which no word of it says
        (
            "华信每个月服务抵扣最多能抵多少？",
            ("CT-HUAXIN", "ORD-HUAXIN"),
            {"CT-HUAXIN": "50 %", "ORD-HUAXIN": "30 %"},
        ),
    ],
)
def test_the_embedding_chooses_between_statements_that_cover_the_question_equally(
    embedder, query, documents, values
):
    found, _ = conflicts(query, *documents, similarity=embedded_similarity(embedder, query))
    assert values_of(found) == [values]
    # without it the first of the equal statements answers, and it is not the one asked about
    assert conflicts(query, *documents)[0] != found


def test_a_statement_whose_own_clause_covers_the_question_comes_before_its_sentence_s_others(
    embedder,
):
    # 「近12个月到货拒收≥2批的，」 covers the question only through the rest of its sentence
    # (「…应增加现场审计」); 「3.1 A类供应商每24个月进行一次现场审计」 in its own clause.
    query = "原料药供应商的现场审计多久要做一次？"
    for similarity in (None, embedded_similarity(embedder, query)):
        found, _ = conflicts(query, "QM-001", "SOP-QA-040-B", similarity=similarity)
        assert values_of(found) == [{"QM-001": "36 month", "SOP-QA-040-B": "24 month"}]


@pytest.mark.parametrize(
    ("question", "attribute", "said"),
    [
        ("出差回來之後，旅費要在幾天內報掉？", "差旅費", True),  # an HR rule (Traditional)
        ("出差回來之後，旅費要在幾天內報掉？", "返回", False),  # no pair of its characters
        ("华信每个月服务抵扣最多能抵多少？", "服务费", True),  # a contract (Simplified)
        ("华信每个月服务抵扣最多能抵多少？", "可用性", False),
    ],
)
def test_a_chinese_word_the_question_says_half_of_is_what_it_asks_about(question, attribute, said):
    reading = _reading(question)
    assert reading.half_asked(text.normalize(attribute)) is said


@pytest.mark.parametrize(
    ("clause", "said"),
    [
        ("（3）防水層完成後應辦理試水48小時，", {"防水层", "试水"}),  # a works spec (Traditional)
        ("(2) Chilled product held above 8 °C for 4 hours", {"chill", "product"}),  # food QA
    ],
)
def test_a_list_number_in_brackets_is_not_the_quantity_a_clause_states(clause, said):
    words = statements._attribute_words(_reading("How long?"), "T/X@1#0", "", clause)
    assert said <= words


@pytest.mark.parametrize(
    ("unit", "written", "found"),
    [
        # a Chinese question about an English work instruction (a food plant's)
        ("探测器", "- Metal detector (CEIA THS): test every 2 hours", True),
        ("玻璃", "6. Glass or hard plastic breakage: product within 2 metres is scrapped", True),
        # an English question about a Chinese notice rule (a property manager's)
        ("notic", "管理處須最少於7日前以書面通告通知全體受影響住戶。", True),
        # the same script is compared as written, never in translation
        ("探测器", "金屬檢測機每2小時測試一次", False),
        ("detector", "The X-ray is tested at start-up.", False),
    ],
)
def test_an_answer_of_the_other_script_writes_a_word_in_translation(unit, written, found):
    normalized = text.normalize(written)
    assert statements._written(unit, normalized, text.TextUnits.of(normalized)) is found


@pytest.mark.parametrize(
    ("question", "word", "said"),
    [
        ("四号线金属探测器多久测试一次？", "detector", True),  # food QA: an English answer
        ("四号线金属探测器多久测试一次？", "chiller", False),
        ("How many days' notice must residents get before a planned water cut?", "通知", True),
        ("How many days' notice must residents get before a planned water cut?", "升降机", False),
        ("四号线金属探测器多久测试一次？", "测试", False),  # its own script: as written only
    ],
)
def test_what_a_quantity_of_the_other_script_is_said_of_is_read_in_translation(
    question, word, said
):
    reading = dataclasses.replace(
        _reading(question),
        asked=frozenset(statements._words(text.normalize(question))),
    )
    assert reading.asked_in_translation(word) is said


@pytest.mark.parametrize(
    ("question", "asked", "other"),
    [
        # a car dealer: a Chinese question, the English summary of a fleet account
        (
            "速聯的料件折扣是幾%？",
            "- Parts: 15% off list price.",
            "- Labour: 10% off the branch labour rate.",
        ),
        # a food plant: a Chinese question, an English glass procedure
        (
            "玻璃打碎了，周围几米以内的产品要报废？",
            "2. Breakage: scrap all exposed product within 3 metres.",
            "1. Light fittings hang at least 2 metres above the line.",
        ),
        # a property manager: an English question, a Chinese notice rule
        (
            "How many days' notice must residents get before a planned water cut?",
            "2.1 計劃停水須最少於7日前以書面通告通知住戶。",
            "2.2 停水超過4小時，須於大堂提供臨時食水。",
        ),
    ],
)
def test_a_statement_of_the_other_script_covers_the_words_it_writes_in_translation(
    question, asked, other
):
    reading = _reading(question)
    covered = [statements._covered(reading, "T/X@1#0", line) for line in (asked, other)]
    assert covered[0] > covered[1]


def test_an_answer_of_the_other_script_is_the_statement_the_question_asks_about():
    # Both of the English summary's discounts covered nothing of the Chinese question, and the
    # first (labour's) was its answer: the parts discounts of the two documents were not compared.
    found, _ = conflicts("速聯的料件折扣是幾%？", "CT-FLEET", "FLEET-SUMMARY-EN")
    assert values_of(found) == [{"CT-FLEET": "88 折", "FLEET-SUMMARY-EN": "15 %"}]


def test_a_document_whose_answer_states_no_quantity_is_not_compared_by_its_other_quantities():
    # fastener: asked for the PPAP submission level (「Level 3」, no measure), the agreement's
    # and the manual's record retention (15 / 10 years) is not the answer; asked for the
    # retention, it is
    found, _ = conflicts("GLAC PPAP submission level?", "QA-DETROIT", "SRM-DETROIT")
    assert found == []
    found, _ = conflicts("GLAC record retention - how many years", "QA-DETROIT", "SRM-DETROIT")
    assert [sorted(v.value for v in c.values) for c in found] == [["10 year", "15 year"]]
    # demo: whether certificates go to customers is said without a quantity; the two rules'
    # intervals are compared only when the interval is asked
    question = "Can calibration certificates for handheld gauges be supplied to customers?"
    assert conflicts(question, "SOP-CALIB-EN", "SOP-GAUGE-QA-EN")[0] == []
    found, _ = conflicts(
        "Calibration interval for handheld gauges?", "SOP-CALIB-EN", "SOP-GAUGE-QA-EN"
    )
    assert [sorted(v.value for v in c.values) for c in found] == [["12 month", "6 month"]]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        (
            "台中木藝 M6x30 黑鋅 單價",
            ("TCF-CONTRACT", "TCF-QUOTE"),
            {"TCF-CONTRACT": "0.45 TWD", "TCF-QUOTE": "420 TWD"},
        ),
        (
            "STM32G071RBT6 的單價是多少？",
            ("DIST-PRICES", "DIST-LTA"),
            {"DIST-PRICES": "1.85 USD", "DIST-LTA": "1.92 USD"},
        ),
    ],
)
def test_an_identifier_the_answer_s_line_opens_with_is_named_by_the_answer(
    query, documents, values
):
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # fastener: 「每箱」 (per carton) is the question's heaviest word, and no dictionary
        # word renders it: the English instruction says "per carton"
        (
            "出口纸箱 每箱毛重上限",
            ("SOP-PACKING-ZH", "WI-EXPORT-PACKING"),
            {"SOP-PACKING-ZH": "25 kg", "WI-EXPORT-PACKING": "20 kg"},
        ),
        # a forwarder's warehouse: 「每托」 (per pallet), likewise
        (
            "出口每托毛重不能超过多少？",
            ("SOP-WH-EXPORT", "GUIDE-SHIPPER-PACKING"),
            {"SOP-WH-EXPORT": "1000 kg", "GUIDE-SHIPPER-PACKING": "800 kg"},
        ),
    ],
)
def test_a_word_no_dictionary_renders_is_not_looked_for_in_an_answer_of_the_other_script(
    query, documents, values
):
    found, _cited = conflicts(query, *documents)
    assert len(found) == 1
    assert values_of(found)[0] == values


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # dealer: 3.0 under "Std hours" is three hours of labour
        (
            "Loda 60k service we book how many labour hours?",
            ("KL-RATE", "KL-SOP-SERVICE"),
            {"KL-RATE": "3 hour", "KL-SOP-SERVICE": "3.5 hour"},
        ),
        # a ready-meal maker: 7 under "Shelf life (days)" is seven days
        (
            "How many days of shelf life does the chicken tikka ready meal get?",
            ("SHELF-LIFE-TABLE", "COP-READY-MEAL"),
            {"SHELF-LIFE-TABLE": "7 day", "COP-READY-MEAL": "5 day"},
        ),
    ],
)
def test_a_bare_number_under_a_header_naming_its_unit_is_a_quantity_of_that_unit(
    query, documents, values
):
    found, cited = conflicts(query, *documents)
    assert values_of(found) == [values]
    assert any("|" in e.quote for e in cited)  # the table's row itself is cited


def test_a_header_word_that_only_starts_with_a_unit_names_none():
    # hotel: a minimum-spend table's columns are days of the week, 「晚宴 週一至週五」 (dinner,
    # Monday to Friday): 160,000 under it is no number of weeks
    reading = statements._Reading(
        answerability.profile("最低消費多少？", lambda _u: 1, 10),
        None,
        {},
        statements.TextAnalyses(0),
        asked=frozenset(),
    )
    assert statements._in_header_unit(reading, "T/X@1#0", "晚宴 周一至周五", "160000") is None
    weeks = statements._in_header_unit(reading, "T/X@1#0", "Lead time (weeks)", "12")
    assert weeks is not None and weeks.shown == "12 week"


@pytest.mark.parametrize(
    ("clause", "off"),
    [
        ("第 4 條 料件：依原廠建議售價打 88 折。", 12.0),  # dealer
        ("五、零件：按本公司零件價目 85 折收費", 15.0),  # hkrepair
        ("| 配偶 add-on | 與員工同一計劃 | 員工價九折 |", 10.0),  # clinic
        ("自第15日起日支費按八折計給", 20.0),  # hrlegal
        ("高级支持年费可享 8.5 折", 15.0),  # itdesk
    ],
)
def test_a_discount_written_the_chinese_way_is_the_share_taken_off(clause, off):
    shares = [q for q in statements.quantities_in(clause) if q.measure == "share"]
    assert [q.amount for q in shares] == [off]


def test_depreciation_and_conversion_are_no_discounts():
    found = statements.quantities_in("設備按 5 年折舊，折算後每月 2 折舊額")
    assert [q.measure for q in found] == ["duration"]


def test_two_discounts_written_the_chinese_way_conflict():
    found, _ = conflicts("海港置業零件打幾多折？", "CON-HARBOUR", "NOTE-HARBOUR-ACCOUNT")
    assert values_of(found) == [{"CON-HARBOUR": "85 折", "NOTE-HARBOUR-ACCOUNT": "9 折"}]


@pytest.mark.parametrize(
    ("query", "documents", "values"),
    [
        # clinic: 兩次 against 三次 a day
        (
            "疫苗雪櫃溫度每日要記錄幾多次？",
            ("HK-VAX-SOP", "HK-COLDCHAIN-CHECKLIST"),
            {"HK-VAX-SOP": "兩次", "HK-COLDCHAIN-CHECKLIST": "三次"},
        ),
        # propmgmt: 兩次 against 三次 a month
        (
            "噴霧滅蚊每月做幾次？",
            ("CONTRACT-KF-CLEAN", "SOP-PEST-REVISED"),
            {"CONTRACT-KF-CLEAN": "兩次", "SOP-PEST-REVISED": "三次"},
        ),
    ],
)
def test_how_many_times_written_the_chinese_way_is_a_count(query, documents, values):
    found, _ = conflicts(query, *documents)
    assert values_of(found) == [values]


@pytest.mark.parametrize(
    "text",
    [
        "第五屆管理委員會第十二次會議紀錄",  # propmgmt: an ordinal
        "三次元量測每小時 NT$ 1,600",  # machining: three-dimensional
        "可免費改期一次性處理",  # clinic: one-off
        "重新淬火後再一次檢驗",  # machining: once more
    ],
)
def test_ordinals_and_words_holding_a_count_of_times_are_none(text):
    assert not [q for q in statements.quantities_in(text) if q.shown.endswith("次")]
