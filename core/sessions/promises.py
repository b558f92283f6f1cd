"""Memory promises in words: where an assistant says it saved or will remember something, and
where a user asks it to. Only the language side; pairing a claim with the memory tool calls that
did (or did not) follow is someone else's job. Six languages: en, fr, es, it, ru, zh.

A *claim* (`claims`, assistant messages) is an affirmative statement, by the assistant about
itself, that something is now kept for later in the memory sense:
- a save with a memory target: "I've saved that to memory", "l'ho salvato in memoria",
  "сохранил в память", "已保存到记忆中" (also "let me / I'll save it to memory": a promise too);
- a future or perfect remember: "I'll remember that", "I will keep that in mind",
  "je m'en souviendrai", "lo recordaré", "me lo ricorderò", "я запомню", "我会记住的",
  "I won't forget" (a negated forget is a promise);
- an acknowledgment that is only about keeping: "Got it, saved.", "Noted.", "c'est noté",
  "anotado", "preso nota", "запомнил", "记住了", "好的，我记下了".
Not claims:
- saving other things: "I've saved the file", "j'ai enregistré le fichier", "文件已保存" (a save
  verb needs a memory target unless it stands alone as the whole acknowledgment);
- negations ("I won't remember that", "я не буду это запоминать", "我不会记住"), questions
  ("Should I remember that?", "要我记住吗？"), conditions and offers ("If you want, I'll remember
  this", "I can remember this": *can* is an offer, not a claim);
- someone else doing it ("you said you'd remember", "он запомнил"), imperatives to the user
  ("remember to restart the server"), recall ("I remember you mentioned Postgres",
  "我记得…": remembering the past is not a save), "memory" the hardware (a sentence about RAM,
  caches or buffers does not make "stored in memory" a claim; "in my memory" still does).
- "noted" in its other senses ("as noted above", "I noted that the test fails", "Noted issues:")
  is not a claim. Bare "Noted." / "c'est noté" / "anotato" as a reply *is*: it tells the user the
  thing is kept, which is the promise we look for. A false alarm here is cheap (the pairing shows
  the turn; the user decides); a miss is the bug hmc exists to show.
- "I'll remember to <do X>" counts: it promises future behaviour that only memory can keep.
A *request* (`requests`, user messages) asks the agent to keep something: "remember that…",
"please save this to memory", "don't forget…", "retiens que", "recuerda que", "ricorda che",
"запомни", "记住", "keep in mind that…". "Remember to <do X>" counts as a request too (it asks the
agent to keep a rule, the same reading as above). Not requests: recall questions ("do you remember
…?", "ti ricordi…?", "你还记得…吗"), the user's own memory ("I remember…", "我记得"), reminders
("remind me to…": a scheduling ask, not a memory one), saving files. A request phrased as a polite
question ("can you remember that I use tabs?") is still a request.

How: everything is matched per sentence. A cheap gate (the text lower-cased once, then plain
substring searches for a few dozen stems) finds the places worth a look; each is widened to its
sentence (at most `WINDOW` characters either side, never overlapping the sentence read before), and
only the languages whose stems the sentence holds are tried on it. The patterns have no nested
unbounded quantifiers, so the cost is linear in the text: a 20,000-character reply with no stem
costs well under a millisecond, a 100,000-character wall of "saved" a fraction of a second. Offsets
index the text as given (no normalisation that could move them).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

WINDOW = 320          # a sentence is read at most this far either side of a gate hit
_TAIL = 48            # how far back (within the clause) a negation or another subject counts

_I = re.IGNORECASE


class Claim(NamedTuple):
    start: int
    end: int
    lang: str        # en | fr | es | it | ru | zh
    phrase: str      # text[start:end]


# --- shared pieces -------------------------------------------------------------------------------

_FILL = r"(?:[\w'’-]+[\s,]+){0,6}?"                      # up to 6 words between a verb and its target
_FILL3 = r"(?:[\w'’-]+\s+){0,3}?"
_LEAD = r"^[\W_]*"                                        # markdown, emoji, quotes before a sentence
_SEP = r"[\s,.!:;—–-]+"                                   # between an acknowledgment and what follows
_EMOJI = r"[\u2600-\u27bf\U0001f300-\U0001faff]"
_END = r"(?=\s*(?:[.!,;:—–)…]|$|" + _EMOJI + r"))"       # the word ends its clause


def _end(*words: str) -> str:
    """Like _END, or the word is followed by one of `words` ("noted for next time")."""
    return r"(?=\s*(?:[.!,;:—–)…]|$|" + _EMOJI + r"|(?:" + "|".join(words) + r")\b))"


_TECH = re.compile(
    r"\b(?:v?ram|cach(?:e[sd]?|ing|é)|buffers?|heap|[gc]pu|arrays?|tensors?|dataframes?|embeddings?"
    r"|pointers?|malloc|alloc\w*|swap|bytes|disk|disco|disque|numpy|pandas|mémoire\s+vive"
    r"|\d+\s*[kmgt]i?b)\b|in-memory|кэш|буфер|массив|оперативн|\bозу\b|диск|缓存|内存", _I)
_MINE = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?memor|long[\s-]term|persistent|\b(?:ma|mes)\s+(?:\w+\s+)?mémoire"
    r"|\bmi\s+memoria|\bmia\s+memoria|мо[юей]\s+памят|сво[юей]\s+памят|долговрем|долгосроч", _I)
_MEMWORD = re.compile(r"memor|mémoire|памят", _I)


# A short opening clause before an imperative: "Oh and by the way, remember …", "Por cierto, recuerda …"
_LEADIN = r"(?:(?:[\w'’-]+\s+){0,3}?[\w'’-]+\s*,\s*)?"


def _alt(*parts: str) -> str:
    return "|".join(f"(?:{p})" for p in parts)


class _Lang(NamedTuple):
    lang: str
    script: str                  # latin | cyrillic | cjk: skipped when the sentence has none
    claim: re.Pattern[str]       # negation, condition and subject are checked around a match
    claim_free: re.Pattern[str]  # carries its own negation ("I won't forget"): no negation check
    request: re.Pattern[str]     # imperatives: never inside a question
    polite: re.Pattern[str]      # "can you remember…?": a request even as a question
    negation: re.Pattern[str]
    condition: re.Pattern[str]
    other: re.Pattern[str] | None       # another subject, reported speech: before the match
    veto: re.Pattern[str] | None = None   # a claim misread: "te lo recordaré" is a reminder (tail + match)
    self_: re.Pattern[str] | None = None  # a request misread: "我会记住" is the user's own memory


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


# --- English -------------------------------------------------------------------------------------

_EN_MEM = (r"(?:to|in|into|inside)\s+(?:(?:my|your|the|our)\s+)?"
           r"(?:(?:long[\s-]term|persistent|permanent|agent|hermes|saved)\s+)?"
           r"(?:memory|memories)(?![\w-])(?!\s+(?:usage|use|settings?|limits?|leaks?|footprint|pressure"
           r"|consumption|bandwidth|address(?:es)?|management|allocation|overhead|region|map|layout"
           r"|errors?|cards?|sticks?|modules?|banks?|slots?|of\s+(?:the|this|that|your)\s+"
           r"(?:machine|server|host|gpu|container|process|device|computer|system)))"
           r"|(?:to|in|into)\s+(?:my|your)\s+notes\b|(?:to|in|into)\s+(?:my|your|the)\s+user\s+profile\b"
           r"|(?:to|in|into)\s+(?:MEMORY|USER)\.md\b")
_EN_I = r"\bI(?:['’]ve|\s+have)?(?:\s+(?:just|now|already|also|successfully|gone\s+ahead\s+and|went\s+ahead\s+and)){0,2}"
_EN_WILL = (r"\b(?:I['’]ll|I\s+will|I\s+shall|I['’]m\s+going\s+to|I\s+am\s+going\s+to|let\s+me)"
            r"(?:\s+(?:definitely|certainly|always|also|now|be\s+sure\s+to|make\s+sure\s+to|try\s+to"
            r"|try\s+and|absolutely|surely|go\s+ahead\s+and)){0,2}")
_EN_SAVED = r"(?:saved|stored|added|recorded|written|wrote|put|logged|noted|committed|filed|persisted|memori[sz]ed|jotted)"
_EN_SAVE = r"(?:save|store|add|record|write|put|log|note|commit|file|persist|jot)"
_EN_ACK = (r"(?:(?:ok(?:ay)?|sure|got\s+it|alright|all\s+right|understood|perfect|great|done|thanks"
           r"|thank\s+you|yes|yep|cool|noted|will\s+do|absolutely|of\s+course|right|gotcha|roger)\b" + _SEP + r"){0,3}")
_EN_THAT = r"(?:that|this|it|those|these|them|your\s+\w+(?:\s+\w+){0,2}?)"

EN = _Lang(
    "en", "latin",
    claim=_c(_alt(
        _EN_I + r"\s+" + _EN_SAVED + r"\s+" + _FILL + r"(?:" + _EN_MEM + r")",
        _EN_WILL + r"\s+" + _EN_SAVE + r"\s+" + _FILL + r"(?:" + _EN_MEM + r")",
        _EN_I + r"\s+updated\s+(?:my|the|your)\s+(?:(?:long[\s-]term|persistent)\s+)?memor(?:y|ies)(?![\w-])"
        r"(?!\s+(?:usage|settings?|limits?))",
        r"\b(?:I['’]ll|I\s+will|I\s+shall|I['’]m\s+going\s+to|I\s+am\s+going\s+to)"
        r"(?:\s+(?:definitely|certainly|always|also|now|be\s+sure\s+to|make\s+sure\s+to|try\s+to"
        r"|absolutely|surely)){0,2}\s+(?:remember|memori[sz]e|keep\s+(?:" + _EN_THAT + r"\s+)?in\s+mind"
        r"|bear\s+(?:" + _EN_THAT + r"\s+)?in\s+mind|commit\s+(?:" + _EN_THAT + r"\s+)?to\s+memory"
        r"|note\s+(?:" + _EN_THAT + r"\s+)?down|make\s+a\s+(?:mental\s+)?note|take\s+note"
        r"|note\s+(?:that|this|it)(?=\s*(?:for\b|[.!,;—–)]|$)))\b",
        _EN_I + r"\s+(?:made\s+a\s+(?:mental\s+)?note|taken\s+note|memori[sz]ed|committed\s+(?:"
        + _EN_THAT + r"\s+)?to\s+memory|jotted\s+(?:" + _EN_THAT + r"\s+)?down"
        r"|noted\s+(?:" + _EN_THAT + r")?(?:\s+down)?(?=\s*(?:down\b|for\b|[.!,;—–)]|$))"
        r"|got\s+(?:that|this|it)\s+(?:saved|stored|noted))",
        r"\b(?:that|this|it|your\s+\w+(?:\s+\w+){0,2}?)(?:['’]s|\s+has|\s+have)\s+(?:now\s+|already\s+|also\s+)?been"
        r"\s+(?:safely\s+)?(?:(?:" + _EN_SAVED + r")\s+(?:" + _EN_MEM + r")"
        r"|(?:saved|stored|noted|memori[sz]ed)(?=\s*(?:for\b|[.!,;—–)]|$)))",
        r"\b(?:that|this|it|your\s+\w+(?:\s+\w+){0,2}?)(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+(?:now\s+|already\s+"
        r"|also\s+|safely\s+)?(?:" + _EN_SAVED + r")\s+(?:" + _EN_MEM + r")",
        _LEAD + _EN_ACK + r"(?:duly\s+)?(?:saved|stored|noted|memori[sz]ed|remembered)"
        r"(?=\s*(?:[.!,;:—–)…]|$|" + _EMOJI + r"|(?:for|and)\b))",
        _LEAD + _EN_ACK + r"(?:saved|stored|noted|memori[sz]ed)\s+(?:that|this|it)(?=\s*(?:[.!,;—–)…]|$|for\b))",
        _LEAD + _EN_ACK + r"(?:saved|stored|added|written|recorded|noted|committed|logged|persisted|filed)\s+"
        + _FILL + r"(?:" + _EN_MEM + r")",
        _LEAD + _EN_ACK + r"(?:(?:my\s+)?memor(?:y|ies)\s+(?:updated|saved)|updated\s+(?:my\s+)?memory)\b",
        _LEAD + _EN_ACK + r"will\s+(?:remember|keep\s+(?:" + _EN_THAT + r"\s+)?in\s+mind|note\s+(?:that|this|it)"
        r"(?:\s+down)?(?=\s*(?:[.!,;—–)]|$)))",
        _LEAD + _EN_ACK + r"(?:making|made)\s+a\s+(?:mental\s+)?note\b",
    )),
    claim_free=_c(_alt(
        r"\bI(?:['’]ll|\s+will)?\s*(?:won['’]t|will\s+not|shall\s+not|['’]ll\s+not)\s+(?:ever\s+)?forget\b",
        r"\bI['’]ll\s+never\s+forget\b|\bI\s+will\s+never\s+forget\b",
        _LEAD + _EN_ACK + r"won['’]t\s+forget\b",
    )),
    request=_c(_alt(
        r"(?:^|(?<=[:;—–]))[\W_]*" + _LEADIN + r"(?:(?:please|pls|plz|also|and|oh|hey|btw|by\s+the\s+way|ok(?:ay)?|so|just"
        r"|hermes|important|one\s+more\s+thing)\b" + _SEP + r"){0,3}"
        r"(?:remember(?!\s+(?:when|what|how|who|whom|which|where|why|whether|if|me)\b)(?!\s*\?)"
        r"|memori[sz]e|don['’]t\s+forget|do\s+not\s+forget|never\s+forget|keep\s+(?:this|that|it)\s+in\s+mind"
        r"|keep\s+in\s+mind|bear\s+(?:this|that|it\s+)?in\s+mind|commit\s+(?:this|that|it)\s+to\s+memory"
        r"|note\s+(?:this|that|it)\s+down|make\s+a\s+(?:mental\s+)?note|take\s+note|jot\s+(?:this|that|it)\s+down"
        r"|(?:save|store|add|put|write|record|log|commit)\s+" + _FILL + r"(?:" + _EN_MEM + r")"
        r"|for\s+future\s+reference)\b",
        r"\bplease\s+(?:remember|memori[sz]e|don['’]t\s+forget|keep\s+(?:this|that|it)\s+in\s+mind"
        r"|make\s+a\s+note|note\s+(?:this|that|it)\s+down"
        r"|(?:save|store|add|put|write|record)\s+" + _FILL + r"(?:" + _EN_MEM + r"))\b",
        r"\bmake\s+sure\s+(?:you\s+|to\s+)remember\b",
    )),
    polite=_c(_alt(
        r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember(?!\s+(?:when|what|how|who|whom"
        r"|which|where|why|whether|if|anything|me)\b)(?!\s*\?)|memori[sz]e|keep\s+(?:this|that|it)\s+in\s+mind"
        r"|make\s+a\s+note|note\s+(?:this|that|it)\s+down"
        r"|(?:save|store|add|put|write|record)\s+" + _FILL + r"(?:" + _EN_MEM + r"))\b",
        r"\bI(?:\s+want|\s+need|\s+would\s+like|['’]d\s+like)\s+you\s+to\s+(?:remember|memori[sz]e"
        r"|keep\s+(?:(?:this|that|it)\s+)?in\s+mind|(?:save|store|add|put|write|record)\s+" + _FILL
        + r"(?:" + _EN_MEM + r"))\b",
    )),
    negation=_c(r"n['’]t\b|\b(?:not|never|no|nothing|cannot|unable|without|neither|nor|nobody)\b"),
    condition=_c(r"\b(?:if|unless|whether|once|should\s+you|in\s+case|as\s+soon\s+as|after\s+you"
                 r"|when\s+you|would\s+you\s+like|do\s+you\s+want)\b"),
    other=_c(r"\b(?:you|he|she|they|someone|somebody|the\s+user|the\s+agent|the\s+model|it)\s+"
             r"(?:said|says|told|mentioned|claimed|promised|asked)\b|\b(?:you|he|she|they)(?:['’]d|\s+would)\b"),
    veto=None,
)

# --- French --------------------------------------------------------------------------------------

_FR_MEM = (r"(?:en|dans|à)\s+(?:(?:ma|la|ta|votre|sa)\s+)?(?:(?:mémoire|notes)\b(?![\w-])"
           r"(?!\s+(?:vive|système|du\s+système|ram|cache|virtuelle|physique|partagée|disponible|libre"
           r"|de\s+la\s+(?:machine|carte|gpu)|du\s+(?:serveur|gpu|processus)))"
           r"|mes\s+notes\b|mémoire\s+(?:à\s+long\s+terme|persistante)\b)")
_FR_SAVE = r"(?:enregistr|sauvegard|stock|ajout|not|inscri|consign|mémoris|gard|écri|mis\b|mise\b|rang|conserv)\w*"
_FR_CL = r"(?:l['’]\s*|le\s+|la\s+|les\s+|ça\s+|cela\s+|ceci\s+)"
_FR_ACK = (r"(?:(?:ok(?:ay)?|d['’]accord|entendu|compris|parfait|très\s+bien|bien\s+reçu|reçu|super|merci"
           r"|c['’]est\s+compris|pas\s+de\s+(?:souci|problème)|oui|bien\s+sûr|noté|c['’]est\s+noté|génial"
           r"|top|ça\s+marche|impeccable|volontiers)\b" + _SEP + r"){0,3}")

FR = _Lang(
    "fr", "latin",
    claim=_c(_alt(
        r"\bc['’]est\s+(?:bien\s+|maintenant\s+|désormais\s+)?(?:noté|enregistré|mémorisé|retenu|sauvegardé)\b",
        r"\b(?:c['’]est|(?:a|ont)\s+été|est|sont)\s+(?:bien\s+|désormais\s+|maintenant\s+)?" + _FR_SAVE
        + r"\s+" + _FILL + r"(?:" + _FR_MEM + r")",
        r"\bbien\s+noté\b",
        r"\bj['’](?:en\s+)?(?:ai\s+)?(?:pris|prends)\s+(?:bonne\s+)?note\b|\bje\s+(?:prends|vais\s+prendre)\s+(?:bonne\s+)?note\b"
        r"|\bje\s+(?:le|la|l['’])\s*(?:note|retiens|mémorise)\b|\bje\s+(?:note|retiens|mémorise)\s+(?:ça|cela|bien|que)\b",
        r"\bje\s+(?:m['’]en|me|vais\s+m['’]en|vais\s+me|m['’]en\s+vais|me\s+le|vais\s+bien\s+m['’]en)\s*"
        r"(?:souviendrai|souvenir|rappellerai|rappeler)\b",
        r"\bje\s+(?:" + _FR_CL + r")?(?:retiendrai|mémoriserai|noterai)\b"
        r"|\bje\s+vais\s+(?:bien\s+)?(?:" + _FR_CL + r")?(?:retenir|mémoriser|noter)\b",
        r"\bje\s+(?:" + _FR_CL + r")?(?:garde|garderai|vais\s+garder)\s+(?:(?:ça|cela|ceci|bien|tout\s+ça|précieusement)\s+){0,2}"
        r"(?:en\s+(?:tête|mémoire)|à\s+l['’]esprit|dans\s+(?:un\s+coin\s+de\s+)?(?:ma\s+)?(?:tête|mémoire))",
        r"\bje\s+(?:l['’]|les\s+)ai\s+(?:bien\s+)?(?:noté|notée|notés|retenu|retenue|mémorisé|mémorisée)\b"
        r"|\bj['’]ai\s+(?:bien\s+)?(?:noté|retenu|mémorisé)\s+(?:ça|cela|ceci|tes|ta|ton|vos|votre)\b"
        r"|\bj['’]ai\s+(?:bien\s+)?(?:retenu|mémorisé)\s+que\b",
        r"\bj(?:e\s+|['’])" + _FILL3 + _FR_SAVE + r"\s+" + _FILL + r"(?:" + _FR_MEM + r")",
        r"\bj['’]ai\s+mis\s+à\s+jour\s+(?:ma|la)\s+mémoire\b",
        _LEAD + _FR_ACK + r"(?:noté|notée|enregistré|mémorisé|retenu|sauvegardé|pris\s+note)" + _end("pour", "et"),
        _LEAD + _FR_ACK + _FR_SAVE + r"\s+" + _FILL + r"(?:" + _FR_MEM + r")",
        _LEAD + _FR_ACK + r"mémoire\s+mise\s+à\s+jour\b",
    )),
    claim_free=_c(_alt(
        r"\bje\s+(?:ne\s+(?:l['’]|le\s+|la\s+)?|n['’])\s*oublierai\s+(?:pas|jamais)\b",
        r"\bje\s+ne\s+vais\s+pas\s+(?:l['’])?oublier\b",
    )),
    request=_c(_alt(
        r"(?:^|(?<=[:;—–]))[\W_]*" + _LEADIN + r"(?:(?:s['’]il\s+te\s+plaît|s['’]il\s+vous\s+plaît|stp|svp|merci\s+de|aussi|et|au\s+fait"
        r"|ok|bon|alors|hermes|important|autre\s+chose)\b" + _SEP + r"){0,3}"
        r"(?:retiens|retenez|souviens-toi|souvenez-vous|rappelle-toi|rappelez-vous|n['’]oublie\s+pas"
        r"|n['’]oubliez\s+pas|mémorise|mémorisez|note\s+(?:bien|ça|cela|que)|notez\s+(?:bien|ça|cela|que)"
        r"|prends\s+(?:bonne\s+)?note|prenez\s+(?:bonne\s+)?note|garde\s+(?:(?:ça|cela|ceci|bien)\s+){0,2}"
        r"(?:en\s+(?:tête|mémoire)|à\s+l['’]esprit)|gardez\s+(?:ça\s+)?(?:en\s+(?:tête|mémoire)|à\s+l['’]esprit)"
        r"|(?:enregistre|enregistrez|sauvegarde|sauvegardez|ajoute|ajoutez|stocke|mets|inscris)\s+"
        + _FILL + r"(?:" + _FR_MEM + r")|pour\s+(?:référence|mémoire)\s+future)\b",
        r"\b(?:souviens-toi|rappelle-toi|n['’]oublie\s+pas|retiens\s+(?:bien|que|ça))\b",
    )),
    polite=_c(_alt(
        r"\b(?:peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu\s+peux|tu\s+pourrais|vous\s+pouvez)\s+"
        r"(?:(?:bien\s+)?(?:" + _FR_CL + r")?(?:retenir|mémoriser|noter|te\s+souvenir|garder\s+en\s+(?:tête|mémoire))"
        r"|(?:" + _FR_CL + r")?(?:enregistrer|sauvegarder|ajouter)\s+" + _FILL + r"(?:" + _FR_MEM + r"))\b",
        r"\b(?:je\s+voudrais|j['’]aimerais|je\s+veux|il\s+faut)\s+que\s+tu\s+(?:retiennes|te\s+souviennes"
        r"|mémorises|notes|gardes\s+en\s+(?:tête|mémoire))\b",
    )),
    negation=_c(r"\b(?:ne|pas|jamais|rien|aucune?|sans|ni|personne)\b|\bn['’]"),
    condition=_c(r"\b(?:si|s['’]il|s['’]ils|au\s+cas\s+où|à\s+condition|dès\s+que|une\s+fois\s+que|quand\s+tu"
                 r"|veux-tu|voulez-vous|tu\s+veux\s+que|souhaites-tu)\b"),
    other=_c(r"\b(?:tu|vous|il|elle|ils|elles|on)\s+(?:m['’])?(?:as|a|avez|ont|avais|avait)\s+(?:dit|promis|affirmé)\b"
             r"|\b(?:tu|il|elle|ils|elles)\s+(?:t['’]en|s['’]en|te|se)\s+souvien"),
    veto=None,
)

# --- Spanish -------------------------------------------------------------------------------------

_ES_MEM = (r"(?:en|a)\s+(?:(?:la|mi|tu|su)\s+)?(?:memoria|memorias|notas)\b(?![\w-])"
           r"(?!\s+(?:del\s+sistema|ram|caché|cache|virtual|física|compartida|disponible|libre|principal"
           r"|de\s+(?:video|vídeo|acceso|la\s+gpu|la\s+máquina)|del\s+(?:servidor|proceso|equipo)))")
_ES_SAVEV = r"(?:guard|almacen|registr|anot|apunt|agreg|añad|escrib|escrit|memoriz|memoric|incorpor|grab|sum)"
_ES_1ST = (r"(?:(?:ya\s+)?(?:(?:lo|la|los|las|me\s+lo|me\s+la|eso|esto)\s+)?(?:he|hemos|acabo\s+de|acabamos\s+de|voy\s+a"
           r"|vamos\s+a)\s+(?:ya\s+)?" + _ES_SAVEV + r"\w*"
           r"|(?:(?:lo|la|los|las|me\s+lo|me\s+la|eso|esto)\s+)?" + _ES_SAVEV + r"(?:é|o|aré|í|iré)\b)")
_ES_ACK = (r"(?:(?:ok(?:ay)?|vale|entendido|perfecto|de\s+acuerdo|claro|genial|gracias|listo|hecho|sí|bien"
           r"|muy\s+bien|por\s+supuesto|sin\s+problema|recibido|anotado|apuntado|estupendo|bueno)\b" + _SEP + r"){0,3}")
_ES_NOTED = r"(?:anotad|apuntad|memorizad|registrad|guardad|almacenad|grabad)[oa]s?"

ES = _Lang(
    "es", "latin",
    claim=_c(_alt(
        r"\b(?:(?:lo|la|los|las|me\s+lo|me\s+la|eso|esto)\s+)?(?:recordaré|tendré\s+(?:muy\s+)?(?:en\s+cuenta|presente"
        r"|en\s+mente)|memorizaré|retendré|me\s+acordaré|acordaré)\b",
        r"\b(?:(?:lo|la|me\s+lo|me\s+la)\s+)?voy\s+a\s+(?:recordar(?:lo|la|los|las)?|tener(?:lo|la)?\s+(?:en\s+cuenta|presente"
        r"|en\s+mente)|anotar(?:lo|la)?|apuntar(?:lo|la|melo)?|memorizar(?:lo|la)?|acordarme)\b",
        r"\b(?:(?:lo|la|me\s+lo|me\s+la)\s+)?(?:lo\s+)?(?:he|hemos)\s+(?:ya\s+)?(?:memorizado|tomado\s+(?:buena\s+)?nota)\b"
        r"|\b(?:lo|la|los|las|me\s+lo|me\s+la)\s+(?:he|hemos)\s+(?:ya\s+)?(?:anotado|apuntado)\b"
        r"|\b(?:he|hemos)\s+(?:ya\s+)?(?:anotado|apuntado)" + _END,
        r"\b(?:lo|la|me\s+lo|me\s+la)\s+(?:anoto|apunto|anoté|apunté|memoricé|memorizo)\b|\btom[oé]\s+(?:buena\s+)?nota\b"
        r"|\b(?:lo|la)\s+tengo\s+(?:muy\s+)?(?:en\s+cuenta|presente|en\s+mente)\b",
        r"\b" + _ES_1ST + r"\s+" + _FILL + r"(?:" + _ES_MEM + r")",
        r"\b(?:queda|quedan|queda\s+ya|ya\s+queda|está|están|ya\s+está|ha\s+sido|han\s+sido)\s+(?:bien\s+)?"
        r"(?:anotad|apuntad|memorizad)[oa]s?\b",
        r"\b(?:queda|quedan|está|están|ya\s+está|ha\s+sido|han\s+sido)\s+(?:bien\s+)?" + _ES_NOTED + r"\s+"
        + _FILL + r"(?:" + _ES_MEM + r")",
        r"\b(?:he|hemos)\s+actualizado\s+(?:mi|la)\s+memoria\b",
        _LEAD + r"[¡]?" + _ES_ACK + r"[¡]?(?:anotad[oa]|apuntad[oa]|memorizad[oa]|guardad[oa]|registrad[oa]|tomo\s+nota"
        r"|tomada\s+nota|nota\s+tomada)" + _end("para", "y"),
        _LEAD + r"[¡]?" + _ES_ACK + r"[¡]?" + _ES_NOTED + r"\s+" + _FILL + r"(?:" + _ES_MEM + r")",
        _LEAD + r"[¡]?" + _ES_ACK + r"[¡]?memoria\s+actualizada\b",
    )),
    claim_free=_c(_alt(
        r"\bno\s+(?:(?:lo|la|los|las|me\s+lo|me\s+la)\s+)?olvidaré\b|\bno\s+se\s+me\s+olvidará\b",
        r"\bno\s+(?:lo|la)\s+voy\s+a\s+olvidar\b|\bno\s+voy\s+a\s+olvidar(?:lo|la)?\b",
    )),
    request=_c(_alt(
        r"(?:^|(?<=[:;—–]))[\W_]*" + _LEADIN + r"[¡]?(?:(?:por\s+favor|porfa|también|y|oye|ok|vale|además|hermes|bueno|importante"
        r"|otra\s+cosa)\b" + _SEP + r"){0,3}[¡]?"
        r"(?:recuerda(?:lo)?(?!\s+(?:cuando|qué|cómo|quién|dónde)\b)|recuérdalo|recuerde|acuérdate|no\s+olvides"
        r"|no\s+te\s+olvides|que\s+no\s+se\s+te\s+olvide|no\s+se\s+te\s+olvide|memoriza(?:lo)?|apunta(?:lo|te)?\s+(?:que|esto|eso)"
        r"|anota(?:lo)?\s+(?:que|esto|eso)|apúntalo|anótalo|apúntate|toma\s+nota|ten\s+(?:en\s+cuenta|presente|en\s+mente)"
        r"|tenlo\s+(?:en\s+cuenta|presente)"
        r"|(?:guarda|guárdalo|guárdate|almacena|añade|agrega|graba|registra|apunta|anota)\s+" + _FILL + r"(?:" + _ES_MEM + r")"
        r"|para\s+futuras?\s+referencias?)\b",
        r"\b(?:por\s+favor|porfa)\s*,?\s+(?:recuerda|no\s+olvides|memoriza|anota|apunta|toma\s+nota|ten\s+en\s+cuenta)\b",
    )),
    polite=_c(_alt(
        r"\b(?:puedes|podrías|puede|podría)\s+(?:(?:lo|la)\s+)?(?:recordar(?:lo)?|memorizar(?:lo)?|anotar(?:lo)?|apuntar(?:lo|te)?"
        r"|tener\s+en\s+cuenta|guardar(?:lo)?\s+" + _FILL + r"(?:" + _ES_MEM + r"))\b",
        r"\b(?:quiero|necesito|me\s+gustaría)\s+que\s+(?:(?:lo|la)\s+)?(?:recuerdes|memorices|anotes|apuntes|tengas\s+en\s+cuenta"
        r"|guardes\s+" + _FILL + r"(?:" + _ES_MEM + r"))\b",
    )),
    negation=_c(r"\b(?:no|nunca|jamás|ni|nada|tampoco|sin|nadie)\b"),
    condition=_c(r"\b(?:si|en\s+caso\s+de|a\s+menos|una\s+vez\s+que|cuando\s+(?:me|lo)|quieres\s+que|desea\s+que)\b"),
    other=_c(r"\b(?:dijiste|dijo|comentaste|mencionaste|prometiste|prometió)\b"),
    veto=_c(r"\b(?:te|os|les?|se)\s+(?:(?:lo|la|los|las)\s+)?recordaré\b"),
)

# --- Italian -------------------------------------------------------------------------------------

_IT_MEM = (r"(?:in|nella|alla|nelle|tra\s+le|fra\s+le)\s+(?:(?:mia|tua|la)\s+)?(?:memoria|memorie|note)\b(?![\w-])"
           r"(?!\s+(?:di\s+sistema|del\s+sistema|ram|cache|virtuale|fisica|condivisa|disponibile|libera|principale"
           r"|video|della\s+(?:gpu|macchina)|del\s+(?:server|processo)))")
_IT_SAVED = r"(?:salvat|memorizzat|registrat|aggiunt|annotat|scritt|inserit|archiviat|conservat|segnat|mess)[oaie]"
_IT_ACK = (r"(?:(?:ok(?:ay)?|va\s+bene|ricevuto|capito|perfetto|certo|d['’]accordo|benissimo|grazie|fatto|sì|chiaro"
           r"|inteso|bene|ottimo|nessun\s+problema|preso\s+nota|annotato|segnato)\b" + _SEP + r"){0,3}")

IT = _Lang(
    "it", "latin",
    claim=_c(_alt(
        r"\b(?:(?:me\s+lo|me\s+la|me\s+li|mi|lo|la|li|le)\s+)?ricorderò\b",
        r"\b(?:(?:lo|la|li|le)\s+)?(?:terrò|tengo)\s+(?:bene\s+|sempre\s+)?(?:a\s+mente|presente|in\s+mente"
        r"|in\s+considerazione|in\s+memoria)\b",
        r"\b(?:(?:lo|la|li|le)\s+)?(?:memorizzerò|annoterò|segnerò)\b|\bme\s+lo\s+(?:segno|annoto|segnerò|appunto)\b"
        r"|\bprendo\s+(?:buona\s+)?nota\b",
        r"\b(?:l['’]\s*|li\s+|le\s+|lo\s+|la\s+|me\s+l['’]\s*|me\s+li\s+)(?:ho|abbiamo)\s+(?:già\s+|bene\s+)?"
        r"(?:memorizzat|annotat|segnat|appuntat)[oaie]\b"
        r"|\b(?:ho|abbiamo)\s+(?:già\s+)?pres[oa]\s+(?:buona\s+)?nota\b"
        r"|\b(?:ho|abbiamo)\s+(?:già\s+)?memorizzato" + _end("che", "per", "questo", "questa", r"quest['’]",
                                                           r"la\s+tua", r"il\s+tuo", r"le\s+tue", r"i\s+tuoi"),
        r"\b(?:(?:l['’]\s*|li\s+|le\s+|lo\s+|la\s+|già\s+)?(?:ho|abbiamo)|(?:lo|la|li|le)\s+salverò|salverò)\s+(?:già\s+)?"
        r"(?:" + _IT_SAVED + r"\s+)?" + _FILL + r"(?:" + _IT_MEM + r")",
        r"\b(?:è|sono|è\s+stat[oa]|sono\s+stat[ie]|è\s+già|resta|rimane)\s+(?:già\s+|ora\s+|stat[oaie]\s+)?" + _IT_SAVED
        + r"\s+" + _FILL + r"(?:" + _IT_MEM + r")",
        r"\bho\s+aggiornato\s+(?:la\s+)?(?:mia\s+)?memoria\b",
        _LEAD + _IT_ACK + r"(?:memorizzat[oa]|annotat[oa]|salvat[oa]|segnat[oa]|pres[oa]\s+nota|registrat[oa])" + _end("per", "e"),
        _LEAD + _IT_ACK + _IT_SAVED + r"\s+" + _FILL + r"(?:" + _IT_MEM + r")",
        _LEAD + _IT_ACK + r"memoria\s+aggiornata\b",
    )),
    claim_free=_c(_alt(
        r"\bnon\s+(?:(?:lo|la|li|le|me\s+lo|me\s+la|me\s+ne|mi|ne)\s+)?(?:dimenticherò|scorderò)\b",
    )),
    request=_c(_alt(
        r"(?:^|(?<=[:;—–]))[\W_]*" + _LEADIN + r"(?:(?:per\s+favore|per\s+piacere|ti\s+prego|anche|e|inoltre|ok|allora|hermes|importante"
        r"|un['’]altra\s+cosa)\b" + _SEP + r"){0,3}"
        r"(?:ricorda(?!\s+(?:quando|cosa|come|chi|dove|perché)\b)|ricordati|ricordatelo|ricordalo|ricordate"
        r"|memorizza(?:lo|la)?" + _end("questo", "questa", "che", "bene") +
        r"|non\s+dimenticare|non\s+dimenticarti|non\s+scordare|non\s+scordarti|tieni\s+(?:bene\s+)?(?:a\s+mente|presente)"
        r"|tienilo\s+(?:a\s+mente|presente)|prendi\s+nota|annota(?:ti|lo)?\s+(?:che|questo|questa)"
        r"|annotati|segna(?:ti|telo|lo)\b|segna\s+(?:che|questo|questa)"
        r"|(?:salva|salvalo|salvala|aggiungi|registra|metti|scrivi)\s+" + _FILL + r"(?:" + _IT_MEM + r")"
        r"|per\s+riferimento\s+futuro)\b",
        r"\b(?:per\s+favore|per\s+piacere)\s*,?\s+(?:ricorda|memorizza|annota|prendi\s+nota|tieni\s+a\s+mente)\b",
    )),
    polite=_c(_alt(
        r"\b(?:puoi|potresti|può|potrebbe)\s+(?:(?:lo|la)\s+)?(?:ricordare|ricordarti|ricordartelo|ricordarlo|memorizzare"
        r"|tenere\s+a\s+mente|annotare|segnarti|prendere\s+nota|salvar(?:e|lo|la)\s+" + _FILL + r"(?:" + _IT_MEM + r"))\b",
        r"\b(?:vorrei|voglio)\s+che\s+(?:tu\s+)?(?:ti\s+ricordi|ricordi|ricordassi|ti\s+ricordassi|memorizzi"
        r"|memorizzassi|tenga\s+a\s+mente|tenessi\s+a\s+mente|annoti|annotassi|prenda\s+nota|prendessi\s+nota"
        r"|salvi\s+" + _FILL + r"(?:" + _IT_MEM + r"))\b",
        r"\bdevi\s+(?:ricordare|ricordarti|tenere\s+a\s+mente|memorizzare)\b",
    )),
    negation=_c(r"\b(?:non|mai|niente|nulla|né|senza|nessuno)\b"),
    condition=_c(r"\b(?:se|qualora|nel\s+caso|a\s+patto|una\s+volta\s+che|vuoi\s+che|desideri\s+che)\b"),
    other=_c(r"\b(?:hai|ha|avete|hanno)\s+detto\b|\bdicevi\b|\bhai\s+promesso\b|\bti\s+ricorderai\b"),
    veto=_c(r"\b(?:ti|vi|gli|te\s+lo|te\s+la|ve\s+lo|glielo|gliela)\s+ricorderò\b"),
)

# --- Russian -------------------------------------------------------------------------------------

_RU_MEM = (r"(?:в|во)\s+(?:(?:мою|свою|моей|своей|долговременную|долгосрочную|постоянную|долговременной|долгосрочной"
           r"|постоянной)\s+)?(?:памят[ьи]|заметк[иа]х?)\b")
_RU_SAVE = (r"(?:сохранил[аи]?|сохранено|сохранена|сохранены|сохраню|записал[аи]?|записано|записана|запишу"
            r"|добавил[аи]?|добавлено|добавлена|добавлю|занес(?:ла)?|занесено|занесу|внес(?:ла)?|внесено|внесу"
            r"|поместил[аи]?|помещено|положил[аи]?|отложил[аи]?)")
_RU_ACK = (r"(?:(?:ок(?:ей)?|ok|хорошо|понял[аи]?|ясно|принято|отлично|договорились|спасибо|конечно|ладно|да"
           r"|понятно|сделано|готово|будет\s+сделано)\b" + _SEP + r"){0,3}")

RU = _Lang(
    "ru", "cyrillic",
    claim=_c(_alt(
        r"\b(?:я\s+)?(?:(?:это|всё|все|его|её|их|тоже|уже|обязательно|хорошо|точно)\s+){0,2}"
        r"(?:запомнил[а]?|запомню|буду\s+(?:это\s+)?помнить|буду\s+иметь\s+(?:это\s+)?в\s+виду"
        r"|приму\s+к\s+сведению|принял[а]?\s+к\s+сведению|возьму\s+на\s+заметку|взял[а]?\s+на\s+заметку"
        r"|запомнено|учту\s+(?:это\s+)?(?:на\s+будущее|в\s+будущем|впредь|в\s+дальнейшем|в\s+следующий\s+раз)"
        r"|учт(?:у|ено)" + _END + r")",
        r"\b(?:я\s+)?(?:(?:это|всё|все|его|её|их|тоже|уже)\s+){0,2}" + _RU_SAVE + r"\s+" + _FILL + _RU_MEM,
        r"\b(?:я\s+)?(?:уже\s+)?обновил[аи]?\s+(?:свою\s+|мою\s+)?памят[ьи]\b|\bпамять\s+обновлена\b",
        r"\b(?:я\s+)?(?:(?:это|себе)\s+)?(?:записал[а]?|отметил[а]?|пометил[а]?)\s+себе\b|\bзаписал[а]?\s+на\s+будущее\b",
        _LEAD + _RU_ACK + r"(?:записал[а]?|сохранил[а]?|зафиксировал[а]?|отметил[а]?)" + _END,
    )),
    claim_free=_c(r"\b(?:я\s+)?(?:это\s+)?(?:не\s+забуду|ни\s+за\s+что\s+не\s+забуду)\b"),
    request=_c(_alt(
        r"\b(?:запомни(?:те)?|не\s+забудь(?:те)?|не\s+забывай(?:те)?|имей(?:те)?\s+в\s+виду|возьми(?:те)?\s+на\s+заметку"
        r"|прими(?:те)?\s+к\s+сведению|учти(?:те)?|зафиксируй(?:те)?\s+(?:себе|в\s+памяти|это)"
        r"|запиши(?:те)?\s+(?:себе|" + _RU_MEM + r"|это\s+" + _RU_MEM + r")"
        r"|(?:сохрани|сохраните|добавь|добавьте|занеси|занесите|запиши|запишите|внеси|внесите)\s+" + _FILL + _RU_MEM
        + r"|на\s+будущее\s*:)(?![\w-])",
    )),
    polite=_c(_alt(
        r"\b(?:можешь|можете|мог\s+бы|могла\s+бы|могли\s+бы|прошу|хочу,?\s+чтобы\s+ты|нужно,?\s+чтобы\s+ты|надо,?\s+чтобы\s+ты)"
        r"\s+(?:(?:это|пожалуйста)\s+)?(?:запомнить|запомнил|запомнила|учесть|учёл|иметь\s+в\s+виду"
        r"|(?:сохранить|записать|добавить|сохранил|записал)\s+" + _FILL + _RU_MEM + r")(?![\w-])",
        r"\b(?:ты\s+)?должен\s+(?:это\s+)?запомнить\b",
    )),
    negation=_c(r"\b(?:не|ни|нет|никогда|нельзя|ничего|без|никак)\b"),
    condition=_c(r"\b(?:если|ежели|коли|при\s+условии|как\s+только|когда\s+(?:ты|вы)|хочешь,?\s+чтобы|хотите,?\s+чтобы)\b"),
    other=_c(r"\b(?:ты|вы|он|она|оно|они|кто-то|пользователь|модель|агент)\b"),
    veto=None,
)

# --- Chinese -------------------------------------------------------------------------------------

_ZH_MEM = r"(?:我的|你的)?(?:长期)?(?:记忆(?:库|体|文件)?|备忘录?)"
_ZH_ACK = r"(?:(?:好的?|收到|明白(?:了)?|了解|知道了|没问题|嗯|行|OK|ok|好嘞|可以|懂了|谢谢)[，,、!！。.\s~]*){0,3}"

ZH = _Lang(
    "zh", "cjk",
    claim=_c(_alt(
        r"(?:我)?(?:已经|已|都|也)?(?:记住了|记下了|记下来了|记好了|记牢了|牢记了|记在心里了|记在心上了|记录下来了|记到心里了)",
        r"我(?:会|一定会|将|都会|也会|肯定会|以后会|之后会|下次会|会一直|会好好)(?:记住|记得|牢记|记在心里|记在心上|记下来|记下|铭记)",
        r"(?:已|已经|我已|我已经|我|我会|会|我来)?(?:把[^，。！？,.!?\n]{0,20}?)?(?:保存|存储|储存|存入|存|写入|记录|添加|加入|记|放|更新)"
        r"(?:到|在|进|入|至)?(?:了)?" + _ZH_MEM,
        r"(?:记忆|备忘录?)(?:已|已经)?(?:更新|保存)(?:了|好了|完毕)?",
        r"我(?:已经|已)?(?:记下|记录|记住)(?:了|下来了|下来)",
        r"^[\W_]*" + _ZH_ACK + r"(?:已保存|已记录|已记下|已存储|已记住|已存|记下了|已牢记)(?=[。！!.，,；;：:\s~]|$|" + _EMOJI + ")",
    )),
    claim_free=_c(r"我?(?:不会|绝不会|决不会|一定不会|永远不会)(?:忘记|忘掉|忘了|忘的)"),
    request=_c(_alt(
        r"(?:请|麻烦|帮我|请你|你要|你|务必|一定要|要)?(?:记住|记下来|记下|记一下|记好|牢记|记着|记牢)(?!了吗|吗|没有|没)",
        r"(?:别忘了|别忘记|不要忘记|不要忘了|千万别忘|别忘)",
        r"(?:请|帮我|麻烦)?(?:把[^，。！？,.!?\n]{0,20}?)?(?:保存|存|存储|写|记录|加|添加)(?:到|在|进|入)" + _ZH_MEM,
        r"^[\W_]*(?:请)?记得(?!吗)",
    )),
    polite=_c(r"(?:能|可以|能不能|可不可以|能否)(?:帮我)?(?:把[^，。！？,.!?\n]{0,20}?)?(?:记住|记下|记一下|保存到" + _ZH_MEM + r"|存到" + _ZH_MEM + r")"),
    negation=_c(r"不|没|未|无法|别|勿|非|并非"),
    condition=_c(r"如果|要是|假如|若是|若|万一|的话|是否|要不要|需要我|要我"),
    other=_c(r"(?<!的)(?:你|您|他|她|他们|她们|用户)(?!的)"),
    veto=None,
    self_=_c(r"我(?:要|得|会|能|已经?|都|也|一定要|需要|想|没)?(?:记住|记下|记得|记着)|你(?:还)?记得"),
)

LANGS: tuple[_Lang, ...] = (EN, FR, ES, IT, RU, ZH)

# Gate stems, lower case: every claim (first tuple) or request (second) of a language contains one
# of its stems, so a sentence without any is never read for that language, and a text without any
# stem at all costs a `str.lower()` and a few substring searches. Written from the patterns above;
# a pattern that gains a word needs its stem here (the corpus tests catch a missing one).
_STEMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "en": (("remember", "memor", "mind", "note", "saved", "stored", "forget", "jot", "profile", ".md"),
           ("remember", "memor", "forget", "mind", "note", "jot", "future", "profile", ".md")),
    "fr": (("not", "enregistr", "mémo", "reten", "retien", "sauvegard", "souvien", "souven", "rappel", "tête",
            "esprit", "oubli"),
           ("reten", "retien", "souvien", "souven", "rappel", "oubli", "mémo", "not", "tête", "esprit", "futur")),
    "es": (("record", "tendr", "tener", "tengo", "memori", "retendr", "acord", "anot", "apunt", "nota", "guard",
            "registr", "olvid"),
           ("recuerd", "recuérd", "acuérd", "olvid", "memori", "apunt", "apúnt", "anot", "anót", "nota", "cuenta",
            "presente", "mente", "referencia", "record")),
    "it": (("ricord", "terrò", "tengo", "memori", "annot", "segn", "appunt", "nota", "note", "salvat", "registrat",
            "dimentic", "scord"),
           ("ricord", "memori", "dimentic", "scord", "mente", "presente", "nota", "note", "annot", "segn",
            "riferimento")),
    "ru": (("запомн", "помн", "виду", "сведени", "заметк", "учт", "памят", "себе", "будущ", "записал", "сохранил",
            "зафиксир", "отметил", "забуд"),
           ("запомн", "забуд", "забыв", "виду", "заметк", "сведени", "учт", "учес", "учё", "зафиксир", "запиш",
            "памят", "будущ")),
    "zh": (("记", "忘", "存"), ("记", "忘")),
}


def _minimal(stems: set[str]) -> tuple[str, ...]:
    """Drop the stems that contain another one: "note" adds no position that "not" misses."""
    return tuple(sorted(s for s in stems if not any(o != s and o in s for o in stems)))


_GATE_STEMS = (_minimal({s for c, _ in _STEMS.values() for s in c}),
               _minimal({s for _, r in _STEMS.values() for s in r}))
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_SCRIPT = {"latin": _LATIN, "cyrillic": _CYRILLIC, "cjk": _CJK}
# A sentence ends after . ! ? … ; followed by a space (or the end), or at 。！？； or a line break.
# Control characters end one too: they never sit inside a sentence worth reading.
_STOP = re.compile(r"[.!?…;](?=[\s\"'”’»)\]*_]|$)|[。！？；\n\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CLAUSE = re.compile(r"[,;:—–()（），、；：\"“”«»]|\s-\s")
_ZH_NOT_BEFORE = re.compile(r"(?:不|没|别|不要|不用|不必|无需)$")
_QUESTION_END = re.compile(r"[?？][\W_]*$|[吗嘛呢][\W_]*$")


def _sentence(text: str, at: int, floor: int) -> tuple[int, int]:
    """The sentence around position `at`: at most WINDOW characters either side, never before `floor`
    (the end of the sentence read last), so a dense text is still read once."""
    lo = max(floor, at - WINDOW)
    start = lo
    for m in _STOP.finditer(text, lo, at):
        start = m.end()
    m = _STOP.search(text, at, min(len(text), at + WINDOW))
    if m:
        return start, m.end()
    if at + WINDOW >= len(text):
        return start, len(text)
    space = text.rfind(" ", at + 1, at + WINDOW)      # a cut sentence ends between words if it can
    return start, space if space > at else at + WINDOW


def _clause_tail(before: str) -> str:
    """The end of the current clause before a match: a negation or subject counts only there."""
    tail = before[-_TAIL:]
    cut = 0
    for m in _CLAUSE.finditer(tail):
        cut = m.end()
    return tail[cut:]


def _is_question(sentence: str) -> bool:
    s = sentence.strip()
    return bool(_QUESTION_END.search(s)) or s.lstrip("*_>#- \t\"'“«").startswith("¿")


def _is_hardware(sentence: str, phrase: str) -> bool:
    """"stored in memory" next to RAM/cache/buffer talk is about the machine; "my memory" is not."""
    return bool(_MEMWORD.search(phrase)) and not _MINE.search(phrase) and bool(_TECH.search(sentence))


def _lower(text: str) -> str:
    """Lower case with the offsets kept: the rare letter that lowers to two ("İ") stays as it is."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _hits(low: str, stems: tuple[str, ...]) -> list[int]:
    at: list[int] = []
    for stem in stems:
        i = low.find(stem)
        while i >= 0:
            at.append(i)
            i = low.find(stem, i + 1)
    at.sort()
    return at


def _scan(text: str, *, user: bool) -> list[Claim]:
    if not text:
        return []
    low = _lower(text)
    found: list[Claim] = []
    covered = 0
    for at in _hits(low, _GATE_STEMS[user]):
        if at < covered:
            continue
        s, e = _sentence(text, at, covered)
        covered = max(e, at + 1)
        found.extend(_read_sentence(text, low, s, e, user=user))
    return _dedupe(found)


def _read_sentence(text: str, low: str, s: int, e: int, *, user: bool) -> list[Claim]:
    sentence, folded = text[s:e], low[s:e]
    question: bool | None = None
    scripts: dict[str, bool] = {}
    out: list[Claim] = []
    for lang in LANGS:
        if not any(stem in folded for stem in _STEMS[lang.lang][user]):
            continue
        if lang.script not in scripts:
            scripts[lang.script] = bool(_SCRIPT[lang.script].search(sentence))
        if not scripts[lang.script]:
            continue
        if question is None:
            question = _is_question(sentence)
        if user:
            passes = ((lang.request, False), (lang.polite, True))
        else:
            passes = ((lang.claim, True), (lang.claim_free, False))
        for pattern, check in passes:
            for m in pattern.finditer(sentence):
                if m.end() == m.start():
                    continue
                if user:
                    ok = _request_ok(lang, sentence, m, polite=check, question=question)
                else:
                    ok = _claim_ok(lang, sentence, m, check_negation=check, question=question)
                if ok:
                    out.append(Claim(s + m.start(), s + m.end(), lang.lang, m.group(0)))
    return out


def _claim_ok(lang: _Lang, sentence: str, m: re.Match[str], *, check_negation: bool, question: bool) -> bool:
    if question:
        return False
    before, phrase = sentence[:m.start()], m.group(0)
    tail = _clause_tail(before)
    if check_negation and (lang.negation.search(tail) or lang.negation.search(phrase)):
        return False
    if lang.condition.search(before):
        return False
    if lang.other is not None and not _first_person(lang, phrase) and lang.other.search(tail):
        return False
    if lang.veto is not None and lang.veto.search(tail + phrase):
        return False
    return not _is_hardware(sentence, phrase)


def _request_ok(lang: _Lang, sentence: str, m: re.Match[str], *, polite: bool, question: bool) -> bool:
    if question and not polite:
        return False
    before, phrase = sentence[:m.start()], m.group(0)
    tail = _clause_tail(before)
    if lang.lang == "zh":
        if lang.self_ is not None and lang.self_.search(tail[-3:] + phrase):
            return False
        if not polite and (question or _ZH_NOT_BEFORE.search(tail)):
            return False
    elif not polite and lang.negation.search(tail):
        return False
    return not _is_hardware(sentence, phrase)


def _first_person(lang: _Lang, phrase: str) -> bool:
    """The match names the assistant itself ("I've…", "я…", "我…"): another subject before it is
    then someone it talks about ("you said tabs, and I'll remember that")."""
    head = phrase.lstrip()
    me = {"en": "iI", "ru": "яЯ", "zh": "我"}.get(lang.lang, "")
    return bool(head) and head[0] in me and (lang.lang == "zh" or not head[1:2].isalpha())


def _dedupe(found: list[Claim]) -> list[Claim]:
    """One claim per stretch of text: the earliest, then the longest, wins an overlap."""
    found.sort(key=lambda c: (c.start, -(c.end - c.start)))
    out: list[Claim] = []
    for c in found:
        if out and c.start < out[-1].end:
            continue
        out.append(c)
    return out


def _with_hits(texts: list[str], user: bool) -> list[int]:
    """The places in `texts` of those holding a gate stem: found over the texts joined (a NUL apart,
    which no stem holds), a few long searches instead of one short one per stem and text."""
    joined = _lower("\0".join(texts))
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    hit: set[int] = set()
    for stem in _GATE_STEMS[user]:
        i = joined.find(stem)
        while i >= 0:
            n = bisect_right(starts, i) - 1
            hit.add(n)
            if n + 1 == len(starts):
                break
            i = joined.find(stem, starts[n + 1])  # on from the next text
    return sorted(hit)


def scan_many(texts: list[str], *, user: bool) -> list[list[Claim]]:
    """claims() (user False) or requests() (user True) of each text, with the same answers, in a
    fraction of the time when most texts hold none (a review reads thousands of replies)."""
    out: list[list[Claim]] = [[] for _ in texts]
    for n in _with_hits(texts, user):
        out[n] = _scan(texts[n], user=user)
    return out


def claims(text: str) -> list[Claim]:
    """Spans of an assistant message where it says it saved, noted or will remember something."""
    return _scan(text, user=False)


def requests(text: str) -> list[Claim]:
    """Spans of a user message asking the agent to remember or save something."""
    return _scan(text, user=True)
