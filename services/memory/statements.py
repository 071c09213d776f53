"""What a clause does, read from its structure: states a fact about the speaker, sets a standing
rule, changes or cancels something said before, or only moves a document around.

The offline extractor used to recognise facts by the vocabulary of one desk (materials,
tolerances, 'buyer is'). These recognisers look at the shape of a sentence instead: a copula
joining the speaker's own noun phrase to a name ("X is our buyer", 「我們的收貨地址是…」), a
universal quantifier or a habit next to a requirement ("every shipment must…", 「所有訂單都需要…」),
a marker of change ("from 1 May", "no longer", 「改為」, 「起」). The words they use are the
closed-class words of English and Chinese (pronouns, copulas, modals, quantifiers, aspect and
change markers, mail header labels) and the common words of trade (address, invoice, currency
codes, payment terms), never the wording of a dataset. Chinese is matched in Simplified script
(`tokens.normalize_script`), so Traditional text needs no patterns of its own.
"""

from __future__ import annotations

import re

import jieba.posseg

from services.language import tokens
from services.language.sentences import numbers

_I = re.IGNORECASE

# RFC 5322 header fields and the labels mail clients show in Chinese; a line that starts with one
# is the envelope of a message (who, when, its title), not something the customer states.
_HEADER = re.compile(
    r"^\s*(?:subject|re|fwd?|from|to|cc|bcc|date|sent|rfq|"
    r"主题|主旨|标题|寄件者|寄件人|发件人|收件者|收件人|副本|日期|询价)\s*[:：]",
    _I,
)
# Verbs that move a document (attach, forward, send, enclose); their clause says where a file
# went, not what it says.
_MOVES_DOCUMENT = re.compile(
    r"\battach(?:ed|es|ing|ment)?\b|\benclos(?:e|ed|es|ing|ure)\b|\bforward(?:ed|ing|s)?\b|"
    r"\b(?:has|have|was|were|been)\s+(?:been\s+)?(?:sent|passed|shared|uploaded)\b|"
    r"附件|附上|随附|附档|转发|转给|转交|已发|已寄|见附|请见|上传",
    _I,
)
# Modal verbs of obligation: what makes a clause a requirement rather than a report.
_REQUIRES = re.compile(
    r"\b(?:must|need(?:s|ed)?|require[sd]?|required|have to|has to|should|shall|"
    r"(?:is|are) to be)\b|需要|须|必须|务必|要求|一定要|都要|要用|要附|要有|应当|应该",
    _I,
)
# Universal quantifiers, habits and "from now on": a rule that holds beyond one order.
_STANDING = re.compile(
    r"\b(?:every|each|all|any|whenever|always|usually|generally|normally|in (?:the )?future|"
    r"going forward|from now on|as a rule)\b|每|所有|一律|凡是|凡|一向|通常|向来|今后|以后|往后|"
    r"长期|一般都",
    _I,
)
# Deictic words that pin a statement to one order or occasion ("this time", 「這批」).
_ONE_OFF = re.compile(
    r"\b(?:this|that) (?:time|order|batch|lot|shipment|enquiry|inquiry|rfq|project)\b|"
    r"\bfor now\b|这次|这批|本次|此次|这一批|本单|这单|这张",
    _I,
)
# Markers that a statement replaces an earlier one: a start date, "now", "no longer", a
# takeover, 「改為」「起」「不再」「接替」.
_CHANGE = re.compile(
    r"\b(?:now|no longer|not any ?more|any ?more|instead|from (?:now|next|the|\d|[a-z]+ \d)|"
    r"starting|as of|effective|changed?|changes|moved?|moves|replac(?:e|es|ed|ing)|"
    r"take[sn]? over|took over|taking over|succeed(?:s|ed)?|updated?)\b|"
    r"改为|改成|改用|改由|改到|更改|变更|换成|换为|不再|接替|接手|接任|取代|现在|"
    r"(?:[日号月周]|下周|下月)起|从.{1,16}?(?:起|开始)|搬到|迁至|迁到|更新",
    _I,
)
# A clause that only rejects the old value ("not 17-4PH", "no longer EUR", 「而不是…」) belongs
# to the clause before it.
_REJECTS = re.compile(
    r"^\s*(?:not\b|no longer\b|instead of\b|rather than\b|but not\b|而不是|而非|不是|不再|非)", _I
)
# Predicates that withdraw something ("is cancelled", 「不需要了」).
_CANCELS = re.compile(
    r"\bcancel(?:l?ed|s|ling)?\b|\bcalled off\b|\bwithdrawn?\b|\bdropped\b|"
    r"\bno longer (?:need(?:ed)?|required|necessary|applies|valid)\b|"
    r"\b(?:is|are) not (?:needed|required) any ?more\b|\bdisregard\b|"
    r"取消|撤销|作废|不需要了|不用了|不要了|不再需要|无需再",
    _I,
)
# The speaker's own noun phrase joined by a copula ("X is our N", "our N is X", 「我們的N是X」)
# or by a verb of taking a role or a responsibility.
_SPEAKER_COPULA = re.compile(
    r"\bour\b[^,;]{0,60}?\b(?:is|are|was|will be|remains?|has become|becomes)\b|"
    r"\b(?:is|are|'s|becomes|has become|will be)\s+(?:now\s+)?(?:our|my)\b|"
    r"(?:我们|我司|本公司|敝司|敝公司|公司)(?:的)?[^，,；;]{0,20}?(?:是|为|在|位于|设在)|"
    r"是(?:我们|我司|本公司|敝司)(?:的)?",
    _I,
)
_ROLE_VERB = re.compile(
    r"\b(?:handles?|is responsible for|are responsible for|in charge of|takes care of|"
    r"take[sn]? over|took over|taking over|replaces|succeeds|signs? off|approves)\b|"
    r"负责|主管|对接|接替|接手|接任|改由",
    _I,
)
_ADDRESS = re.compile(
    r"\baddress\b|\b(?:is|are) (?:located )?(?:at|in) (?:no\.? ?)?\d|"
    r"\b(?:ship|deliver|send)(?:ped|ed|s)? (?:the goods |the parts |it |them )?to\b|"
    r"地址|收货|送货|交货地点|送到|寄到",
    _I,
)
# ISO 4217 codes of the currencies trade is quoted in, and their Chinese names.
_CURRENCY = re.compile(
    r"(?<![A-Za-z])(?:USD|EUR|JPY|CNY|RMB|TWD|NTD|GBP|CHF|HKD|SGD|KRW|AUD|CAD)(?![A-Za-z])|"
    r"美元|美金|欧元|人民币|新台币|台币|日元|日币|英镑|港币|\b(?:dollars?|euros?|yuan)\b",
)
_PAYMENT = re.compile(
    r"\bpayment\b|\bpay(?:s|ing)? (?:in advance|by|within|net|on)\b|\bnet \d+\b|\bT/T\b|"
    r"\bL/C\b|\bletter of credit\b|\bprepay(?:ment)?\b|付款|月结|账期|货到付|预付|电汇|信用证",
    _I,
)
# A Latin-script person: an honorific before a name, or a given name and a surname.
_LATIN_PERSON = re.compile(r"\b(?:Mr|Ms|Mrs|Dr|Miss)\.?\s+[A-Z]|\b[A-Z][a-z]+\s+[A-Z][a-z]+\b")
_HONORIFIC_NAME = re.compile(r"\b(?:Mr|Ms|Mrs|Dr|Miss)\.?\s+([A-Z][\w-]+)")
_CJK_NAME_TAGS = ("nr", "ns", "nt", "nz")
_LATIN_NAME = re.compile(r"(?<=[^\s.!?:;])\s+([A-Z][a-zA-Z0-9&.-]*)")


def zh(text: str) -> str:
    """Chinese folded to Simplified (lengths unchanged), so one pattern reads both scripts."""
    return tokens.normalize_script(text)


def is_header(line: str) -> bool:
    """A mail header line ('Subject: RFQ …', 「主旨：…」): the envelope, not what it says."""
    return bool(_HEADER.match(zh(line)))


def moves_document(clause: str) -> bool:
    """Whether the clause only says a document was attached, forwarded or sent. One that also
    requires something ('certificates must be attached to each lot') is a requirement."""
    text = zh(clause)
    return bool(_MOVES_DOCUMENT.search(text)) and not _REQUIRES.search(text)


def requires(clause: str) -> bool:
    return bool(_REQUIRES.search(zh(clause)))


def standing(clause: str) -> bool:
    """A rule beyond one occasion: a quantifier, a habit or 'from now on', and no 'this time'."""
    text = zh(clause)
    return bool(_STANDING.search(text)) and not _ONE_OFF.search(text)


def one_off(clause: str) -> bool:
    return bool(_ONE_OFF.search(zh(clause)))


def states_change(text: str) -> bool:
    """Whether a statement presents itself as replacing an earlier one."""
    return bool(_CHANGE.search(zh(text)))


def rejects(clause: str) -> bool:
    """A fragment that only rejects an old value ('not 17-4PH', 「不再用歐元」)."""
    return bool(_REJECTS.match(zh(clause)))


def cancels(clause: str) -> bool:
    return bool(_CANCELS.search(zh(clause)))


def about_speaker(clause: str) -> bool:
    """'X is our buyer', 'our plant is in …', 「我們的收貨地址是…」, 'X takes over …': the speaker
    describing their own company, people or sites. It must name something (a person, place,
    code or number), so 'our order is urgent' is not a description."""
    text = zh(clause)
    shaped = bool(_SPEAKER_COPULA.search(text) or _ROLE_VERB.search(text))
    return shaped and bool(names(clause))


def profile_kind(clause: str) -> str:
    """The slot a description fills: an address, a contact, or the company itself."""
    text = zh(clause)
    if _ADDRESS.search(text):
        return "address"
    if _ROLE_VERB.search(text) or _LATIN_PERSON.search(clause) or _person_names(text):
        return "contact"
    return "profile"


def commercial_kind(clause: str) -> str | None:
    """'currency' or 'payment' for a clause about how the customer is quoted or pays."""
    text = zh(clause)
    if _CURRENCY.search(text):
        return "currency"
    if _PAYMENT.search(text):
        return "payment"
    return None


def names(text: str) -> set[str]:
    """The values a statement carries, comparable across languages: numbers, codes, Latin
    names (capitalised words not opening the sentence, acronyms) and Chinese proper nouns
    (the segmenter's person, place, organisation and other-name tags)."""
    found: set[str] = {str(n) for n in numbers(text)}
    found.update(tokens.identifiers(text))
    found.update(m.group(1).strip(".").casefold() for m in _LATIN_NAME.finditer(text))
    found.update(m.group(1).casefold() for m in _HONORIFIC_NAME.finditer(text))
    found.update(_proper_nouns(zh(text)))
    return {n for n in found if n}


def _person_names(text: str) -> list[str]:
    """Chinese person names as the segmenter tags them (「劉靜」, 「王工」)."""
    if not re.search(r"[\u4e00-\u9fff]", text):
        return []
    tokens.segmenter()
    return [p.word for p in jieba.posseg.cut(text) if p.flag == "nr" and len(p.word) > 1]


def _proper_nouns(text: str) -> list[str]:
    if not re.search(r"[\u4e00-\u9fff]", text):
        return []
    tokens.segmenter()
    return [
        p.word
        for p in jieba.posseg.cut(text)
        if p.flag.startswith(_CJK_NAME_TAGS) and len(p.word) > 1
    ]
