"""Wider injection checks: the Hermes ideas in English, French, Spanish, Italian, Russian
and Chinese.

Hermes's own patterns are English-only. Each language here is one `Lexicon` (word
lists and a few fixed phrasings); `_build` turns it into `Rule`s with the id
`injection_<lang>`. Adding a language means adding one Lexicon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.scanner_rules import KEEP, Rule, Verdict, rule

_LATIN_F = r"(?:[\w'’-]+[\s,]+){0,6}"        # filler: up to 6 words
_CJK_F = r"[^。！？!?\n]{0,12}?"               # filler: up to 12 characters of the sentence


@dataclass(frozen=True)
class Lexicon:
    lang: str
    name: str
    ignore_verbs: str            # ignore / forget / disregard …
    qualifiers: str              # previous / above / your / all …
    instruction_nouns: str       # instructions / rules / guidelines …
    reveal_verbs: str            # show / reveal / print …
    prompt_terms: str            # system prompt / initial instructions …
    exfil_verbs: str             # send / upload / forward …
    sensitive: str               # passwords / conversation / tokens …
    role: str                    # "you are now …" (full regex)
    pretend: str                 # "pretend to be …" (full regex)
    no_limits: str               # "answer without restrictions" (full regex)
    hide: str                    # "don't tell the user" (full regex)
    forget_all: str = ""         # "forget everything you were told"
    override: str = ""           # "new system prompt", "DAN mode"
    stems: tuple[tuple[str, str], ...] = ()  # (slot, "a|b|c"): substrings every match holds
    cjk: bool = False            # no spaces between words, no \b


_SLOTS = {
    "ignore": "ignore previous instructions",
    "reveal": "reveal the system prompt",
    "exfil": "send secrets or the conversation to a URL",
    "role": "give the agent a new identity ('you are now …')",
    "pretend": "pretend to be someone else",
    "no_limits": "answer without restrictions",
    "hide": "hide something from the user",
    "forget_all": "forget everything it was told",
    "override": "replace the system prompt",
}


def _build(lex: Lexicon) -> tuple[Rule, ...]:
    b = "" if lex.cjk else r"\b"
    f = _CJK_F if lex.cjk else _LATIN_F
    sep = "" if lex.cjk else r"[\s,:]*"
    v, q, n = lex.ignore_verbs, lex.qualifiers, lex.instruction_nouns
    patterns = {
        "ignore":
            rf"{b}(?:{v}){b}{sep}{f}(?:(?:{q}){b}{sep}{f}(?:{n})|(?:{n}){b}{sep}{f}(?:{q}){b})",
        "reveal": rf"{b}(?:{lex.reveal_verbs}){b}{sep}{f}(?:{lex.prompt_terms})",
        "exfil": r"(?m)^[^\n]*?https?://[^\n]*",   # a line with a URL; refined below
        "role": lex.role,
        "pretend": lex.pretend,
        "no_limits": lex.no_limits,
        "hide": lex.hide,
        "forget_all": lex.forget_all,
        "override": lex.override,
    }
    stems = dict(lex.stems)
    if set(stems) - set(_SLOTS):
        raise ValueError(f"{lex.lang}: unknown slots {set(stems) - set(_SLOTS)}")
    return tuple(
        rule(f"injection_{lex.lang}", pattern, "error",
             f"{lex.name} prompt injection: {_SLOTS[slot]}", kind="injection",
             gate=("http", stems[slot]) if slot == "exfil" else stems.get(slot),
             refine=_exfil_line(lex, b) if slot == "exfil" else None)
        for slot, pattern in patterns.items() if pattern
    )


def _exfil_line(lex: Lexicon, b: str):
    """Keep a URL line only if it also has a sending verb and something sensitive."""
    verb = re.compile(rf"{b}(?:{lex.exfil_verbs}){b}", re.IGNORECASE)
    sensitive = re.compile(lex.sensitive, re.IGNORECASE)

    def refine(m: re.Match[str]) -> Verdict | None:
        line = m.group()
        return KEEP if verb.search(line) and sensitive.search(line) else None

    return refine


EN = Lexicon(
    "en", "English",
    ignore_verbs=r"ignore|disregard|override|bypass|forget|discard|abandon",
    qualifiers=r"previous|prior|above|earlier|preceding|initial|original|existing|your",
    instruction_nouns=r"instructions?|rules|guidelines|directives|prompts?|constraints|guardrails"
                      r"|programming|restrictions|policies",
    reveal_verbs=r"reveal|show|print|display|repeat|leak|dump|expose|share|recite|echo|output"
                 r"|write\s+out|tell\s+me|give\s+me",
    prompt_terms=r"(?:system|initial|hidden|original|secret|internal|developer)\s+"
                 r"(?:prompt|instructions|message|rules)"
                 r"|(?:your|the)\s+(?:instructions|prompt|rules)\s+(?:verbatim|word\s+for\s+word)",
    exfil_verbs=r"send|post|upload|transmit|forward|exfiltrate|leak|copy|mirror",
    sensitive=r"conversations?|chat\s+(?:history|logs?)|passwords?|api\s+keys?|tokens?|secrets?"
              r"|credentials|env(?:ironment)?\s+variables|\.env\b|cookies|memory\s+files?"
              r"|user['’]s\s+(?:messages|data|files)|private\s+keys?|ssh\s+keys?",
    role=r"\byou\s+are\s+no\s+longer\s+(?:an?\s+|the\s+)?(?:AI|assistant|bound|restricted|limited"
         r"|Claude|ChatGPT|Hermes|model|chatbot)"
         r"|\b(?:from\s+now\s+on|henceforth|starting\s+now)\s*,?\s+you\s+(?:are|will\s+be|shall\s+be"
         r"|act\s+as|will\s+act\s+as)\s+(?:an?\s+|the\s+)?(?:(?-i:[A-Z]{2,})\b|(?:unrestricted"
         r"|unfiltered|evil|jailbroken|uncensored)\b)"
         r"|\b(?:from\s+now\s+on|henceforth)\s*,?\s+you\s+(?:only\s+)?(?:obey|answer\s+to"
         r"|take\s+orders\s+from)\b",
    pretend=r"\brole-?play\s+as\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken"
            r"|uncensored|evil|rogue)\b|\bimpersonate\s+(?:the\s+)?(?:system|developer|admin)\b",
    no_limits=r"\byou\s+(?:now\s+)?have\s+no\s+(?:more\s+)?(?:restrictions|rules|limits|filters"
              r"|guidelines|content\s+policy|safety\s+guidelines)"
              r"|\b(?:answer|respond|reply)\s+(?:\w+\s+){0,6}(?:without|with\s+no)\s+(?:any\s+)?"
              r"(?:restrictions|filters|censorship|limits|safety)"
              r"|\b(?:enable|enter|activate|switch\s+to)\s+(?:DAN|jailbreak|god)\s+mode"
              r"|\bAI\s+with\s+no\s+(?:content\s+policy|restrictions|filters|rules)",
    hide=r"\b(?:don['’]t|never|do\s+not)\s+(?:\w+\s+){0,4}?(?:tell|inform|notify|alert)\s+"
         r"(?:\w+\s+){0,3}?(?:the\s+)?user\b"
         r"|\b(?:don['’]t|never|do\s+not)\s+let\s+the\s+user\s+(?:know|see|find\s+out|notice)"
         r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user"
         r"|\b(?:hide|keep)\s+(?:this|it|that|them)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user"
         r"|\bbehind\s+the\s+user['’]s\s+back",
    forget_all=r"\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|you\s+know"
               r"|above|before)",
    override=r"\bnew\s+system\s+prompt\s*:|\bDAN\s+mode\b|\bjailbreak\s+mode\b",
    stems=(("ignore", "ignor|disregard|overrid|bypass|forget|discard|abandon"),
           ("reveal", "prompt|instruction|message|rules"),
           ("exfil", "conversation|chat|password|api|token|secret|credential|env|cookie|memory"
                     "|user|private|ssh"),
           ("role", "longer|now|henceforth"),
           ("pretend", "role|act|impersonat"),
           ("no_limits", "have|answer|respond|reply|mode|with"),
           ("hide", "user"),
           ("forget_all", "forget"),
           ("override", "system|dan|jailbreak")),
)

FR = Lexicon(
    "fr", "French",
    ignore_verbs=r"ignore[rz]?|oublie[rz]?|ne\s+(?:tiens|tenez|tenir)\s+(?:pas|plus)\s+compte"
                 r"\s+d[eu]s?|fai(?:s|tes)\s+abstraction\s+d[eu]s?|passe[rz]?\s+outre"
                 r"|outrepasse[rz]?|écarte[rz]?|ecarte[rz]?",
    qualifiers=r"précédent\w*|precedent\w*|antérieur\w*|anterieur\w*|ci-dessus|plus\s+haut|toutes"
               r"|tous|tes|vos|ton|votre|initial\w*|d['’]origine|d['’]avant|actuel\w*",
    instruction_nouns=r"instructions?|consignes?|directives?|règles?|regles?|ordres?|indications?"
                      r"|prompts?|garde-fous|restrictions?|limites?",
    reveal_verbs=r"révèle\w*|revele\w*|révéle\w*|montre\w*|affiche\w*|divulgue\w*|donne[-\s]moi"
                 r"|répète\w*|repete\w*|imprime\w*|écris|ecris|écrivez|recopie\w*|dévoile\w*"
                 r"|devoile\w*|communique\w*|partage\w*|récite\w*|dis[-\s]moi",
    prompt_terms=r"(?:prompt|invite)\s+(?:du\s+)?(?:système|systeme|initial\w*|d['’]origine|caché\w*)"
                 r"|(?:instructions?|consignes?|directives?)\s+(?:du\s+)?(?:système|systeme"
                 r"|initiales?|cachées?|d['’]origine|secrètes?|secretes?|internes?)"
                 r"|message\s+(?:du\s+)?système",
    exfil_verbs=r"envoie\w*|envoy\w+|transmet\w*|poste[rz]?|publie[rz]?|téléverse\w*|televerse\w*"
                r"|exfiltre\w*|copie[rz]?|renvoie\w*|fais\s+suivre|partage[rz]?",
    sensitive=r"conversations?|historique|échanges|echanges|mots?\s+de\s+passe|clés|cles|clé|jetons?"
              r"|tokens?|secrets?|identifiants?|données\s+(?:de\s+l['’]utilisateur|personnelles"
              r"|sensibles)|mémoire|memoire|\.env\b|contexte|variables\s+d['’]environnement"
              r"|cookies?|messages\s+de\s+l['’]utilisateur",
    role=r"\b(?:tu\s+es|vous\s+êtes|vous\s+etes|t['’]es)\s+(?:désormais|desormais|maintenant"
         r"|dorénavant|dorenavant|à\s+présent|a\s+present|à\s+partir\s+de\s+maintenant)\b"
         r"|(?:\bdésormais|\bdesormais|\bdorénavant|\bdorenavant|à\s+partir\s+de\s+maintenant"
         r"|\ba\s+partir\s+de\s+maintenant|à\s+présent)\s*,?\s*(?:tu\s+es|vous\s+êtes"
         r"|tu\s+t['’]appelles|vous\s+vous\s+appelez|tu\s+incarnes|tu\s+deviens|vous\s+devenez)\b"
         r"|\b(?:tu\s+n['’]es|vous\s+n['’]êtes)\s+plus\s+(?:un|une|l['’]|le|la)\s*(?:assistant"
         r"|IA|modèle|Claude|Hermes|agent)",
    pretend=r"\bfai(?:s|tes|t)\s+semblant\s+d['’](?:être|etre)|\bprétend(?:s|ez)\s+(?:être|etre"
            r"|que\s+tu\s+es)|\bpretend(?:s|ez)\s+(?:etre|être)|\bmets[-\s]toi\s+dans\s+la\s+peau\s+d",
    no_limits=r"\b(?:réponds|répondez|reponds|repondez|répondre|agis|agissez|parle|parlez|écris"
              r"|ecris|écrivez)\b[\s,]*" + _LATIN_F + r"sans\s+(?:aucune?s?\s+|plus\s+de\s+"
              r"|la\s+moindre\s+)?(?:restrictions?|limites?|limitations?|filtres?|censure|règles?"
              r"|regles?|garde-fous)"
              r"|\b(?:tu\s+n['’]as|vous\s+n['’]avez)\s+(?:plus\s+)?(?:aucune?|pas\s+de|plus\s+de)\s+"
              r"(?:restrictions?|limites?|règles?|regles?|filtres?|censure|garde-fous)",
    hide=r"\bne\s+(?:le\s+|la\s+|les\s+|lui\s+|leur\s+|l['’]\s*)?(?:dis|dites|dire|révèle\w*"
         r"|revele\w*|mentionne\w*|signale\w*|montre\w*|parle\w*|préviens|previens|prévenez"
         r"|informe\w*)\s+(?:rien|pas|jamais|plus)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?(?:à|a|aux)\s+"
         r"(?:l['’]\s*)?utilisat(?:eur|rice)s?"
         r"|\bsans\s+(?:le\s+|en\s+)?(?:dire|prévenir|prevenir|informer|avertir|parler)\s+"
         r"(?:à\s+|a\s+)?(?:l['’]\s*)?utilisat(?:eur|rice)"
         r"|\bcache[rz]?\s+(?:ça|cela|ceci|le|la|les|tout)\s+(?:[\w'’-]+\s+){0,4}?(?:à|a)\s+"
         r"l['’]\s*utilisat(?:eur|rice)|à\s+l['’]insu\s+de\s+l['’]\s*utilisat",
    forget_all=r"\boublie[rz]?\s+tout\s+ce\s+(?:qu['’]on|que\s+(?:l['’]on|je|nous))\s+"
               r"(?:t['’]a|vous\s+a|t['’]avons|t['’]ai)",
    override=r"\bnouve(?:au|lles?)\s+(?:prompt|instructions?|consignes?)\s+(?:du\s+)?(?:système"
             r"|systeme)|\bmode\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", "ignor|oubli|compte|abstraction|outre|écart|ecart"),
           ("reveal", "prompt|invite|instruction|consigne|directive|message"),
           ("exfil", "conversation|historique|échanges|echanges|mot|clé|cle|jeton|token|secret"
                     "|identifiant|données|mémoire|memoire|env|contexte|variables|cookie|messages"),
           ("role", "désormais|desormais|maintenant|dorénavant|dorenavant|présent|present|n'|n’"),
           ("pretend", "semblant|prétend|pretend|peau"),
           ("no_limits", "sans|n'|n’"),
           ("hide", "utilisat"),
           ("forget_all", "tout"),
           ("override", "système|systeme|mode")),
)

ES = Lexicon(
    "es", "Spanish",
    ignore_verbs=r"ignora\w*|ignore\w*|ignorad|olvida\w*|olvide\w*|olvidad|omite\w*|omita\w*"
                 r"|haz\s+caso\s+omiso\s+(?:de|a)|no\s+hagas\s+caso\s+(?:de|a)|pasa\s+por\s+alto"
                 r"|descarta\w*|desestima\w*",
    qualifiers=r"anteriores|previas|previos|de\s+arriba|anteriormente|tus|sus|vuestras|todas|todos"
               r"|iniciales|originales|precedentes|actuales|del\s+sistema",
    instruction_nouns=r"instrucciones|instrucci[oó]n|indicaciones|reglas|directrices|directivas"
                      r"|[oó]rdenes|normas|consignas|restricciones|l[ií]mites|pautas|prompt",
    reveal_verbs=r"revela\w*|muestra\w*|muéstra\w*|enseña\w*|ensena\w*|dime|imprime\w*|repite\w*"
                 r"|escribe\w*|comparte\w*|divulga\w*|copia\w*|expón|expon\w*",
    prompt_terms=r"prompt\s+(?:del\s+|de\s+)?sistema|prompt\s+(?:inicial|original|oculto)"
                 r"|(?:instrucciones|indicaciones|directrices|reglas)\s+(?:del\s+sistema"
                 r"|de\s+sistema|iniciales|ocultas|secretas|originales|internas)"
                 r"|mensaje\s+(?:del\s+|de\s+)?sistema",
    exfil_verbs=r"env[ií]a\w*|envie\w*|manda\w*|sube\w*|transmite\w*|publica\w*|reenv[ií]a\w*"
                r"|copia\w*|exfiltra\w*|comparte\w*",
    sensitive=r"conversaci[oó]n|historial|contrase[ñn]as?|claves?|tokens?|secretos?|credenciales"
              r"|datos\s+(?:del\s+usuario|personales|sensibles)|memoria|\.env\b|contexto"
              r"|variables\s+de\s+entorno|cookies?|mensajes\s+del\s+usuario",
    role=r"\b(?:ahora|ya)\s+(?:eres|serás|seras|te\s+llamas|act[uú]as\s+como)\b"
         r"|\b(?:a\s+partir\s+de\s+ahora|desde\s+ahora|de\s+ahora\s+en\s+adelante|en\s+adelante)"
         r"\s*,?\s*(?:eres|serás|seras|te\s+llamas|actuarás|actuaras|act[uú]as)\b"
         r"|\beres\s+ahora\b|\bya\s+no\s+eres\s+(?:un|una|el|la)\s*(?:asistente|IA|modelo|agente"
         r"|Claude|Hermes)",
    pretend=r"\bfinge\s+(?:ser|que\s+eres)|\bfingid\s+ser|\bhaz\s+como\s+si\s+fueras"
            r"|\bact[uú]a\s+como\s+si\s+fueras|\bsimula\s+(?:ser|que\s+eres)|\bhazte\s+pasar\s+por",
    no_limits=r"\b(?:responde\w*|contesta\w*|act[uú]a|habla|escribe)\b[\s,]*" + _LATIN_F +
              r"sin\s+(?:ning[uú]n\s+tipo\s+de\s+|ninguna\s+|ning[uú]n\s+)?(?:restricciones?"
              r"|restricci[oó]n|l[ií]mites?|filtros?|censura|reglas?)"
              r"|\bno\s+tienes\s+(?:ya\s+)?(?:ninguna?\s+|ning[uú]n\s+)?(?:restricci[oó]n"
              r"|restricciones|l[ií]mites|reglas|filtros|censura)",
    hide=r"\bno\s+(?:se\s+lo\s+|se\s+la\s+|le\s+|les\s+|lo\s+|la\s+)?(?:digas|diga|dig[aá]is"
         r"|cuentes|cuente|menciones|mencione|reveles|revele|informes|informe|avises|avise"
         r"|muestres|comentes)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?(?:al|a\s+los|a\s+las|a\s+la)\s+"
         r"usuari[oa]s?"
         r"|\bsin\s+(?:dec[ií]rselo|decirle\s+nada|decirle|avisar|informar|notificar)\s+(?:nada\s+)?"
         r"(?:al|a\s+los|a\s+la)\s+usuari"
         r"|\boc[uú]lta(?:lo|la|los|las|r)?\s+(?:[\w'’-]+\s+){0,4}?(?:al|del|a\s+los|de\s+los)\s+"
         r"usuari|\ba\s+espaldas\s+del\s+usuario"
         r"|\bsin\s+que\s+el\s+usuario\s+(?:lo\s+)?(?:sepa|note|se\s+entere)",
    forget_all=r"\bolvida\w*\s+todo\s+lo\s+(?:que|anterior)",
    override=r"\bnuev[oa]s?\s+(?:prompt|instrucciones)\s+del\s+sistema|\bmodo\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", "ignor|olvid|omit|omiso|caso|alto|descart|desestim"),
           ("reveal", "prompt|instrucc|indicac|directric|regla|mensaje"),
           ("exfil", "conversaci|historial|contrase|clave|token|secreto|credencial|datos|memoria"
                     "|env|contexto|variables|cookie|mensajes"),
           ("role", "eres|serás|seras|llamas|actúas|actuas|actuar"),
           ("pretend", "fing|fueras|simula|hazte"),
           ("no_limits", "sin|tienes"),
           ("hide", "usuari"),
           ("forget_all", "olvid"),
           ("override", "sistema|modo")),
)

IT = Lexicon(
    "it", "Italian",
    ignore_verbs=r"ignora\w*|ignori|ignorate|dimentica\w*|dimentichi|dimenticate|trascura\w*"
                 r"|non\s+(?:tenere|tenete|tener)\s+conto\s+d\w*|non\s+considerare|lascia\s+perdere"
                 r"|scarta\w*",
    qualifiers=r"precedenti|sopra|tue|tuoi|sue|vostre|tutte|tutti|iniziali|originali"
               r"|fornite\s+prima|di\s+prima|attuali|del\s+sistema|di\s+sistema",
    instruction_nouns=r"istruzion[ei]|indicazion[ei]|regole|direttive|ordini|linee\s+guida"
                      r"|restrizion[ei]|limiti|prompt|consegne",
    reveal_verbs=r"rivela\w*|mostra\w*|mostrami|stampa\w*|ripeti\w*|scrivi\w*|dimmi|condividi\w*"
                 r"|svela\w*|divulga\w*|copia\w*|esponi\w*|elenca\w*",
    prompt_terms=r"prompt\s+(?:di|del)\s+sistema|prompt\s+(?:iniziale|originale|nascosto)"
                 r"|(?:istruzioni|indicazioni|direttive|regole)\s+(?:di\s+sistema|del\s+sistema"
                 r"|iniziali|nascoste|segrete|originali|interne)|messaggio\s+(?:di|del)\s+sistema",
    exfil_verbs=r"invia\w*|manda\w*|carica\w*|trasmetti\w*|pubblica\w*|inoltra\w*|copia\w*"
                r"|esfiltra\w*|condividi\w*",
    sensitive=r"conversazion[ei]|cronologia|password|chiav[ei]|token|segreti|credenziali"
              r"|dati\s+(?:dell['’]\s*utente|personali|sensibili)|memoria|\.env\b|contesto"
              r"|variabili\s+d['’]\s*ambiente|cookie|messaggi\s+dell['’]\s*utente",
    role=r"(?:\bora|\badesso|\bd['’]ora\s+in\s+poi|\bda\s+ora\s+in\s+poi|\bda\s+adesso\s+in\s+poi"
         r"|\bda\s+adesso|\bda\s+ora)\s*,?\s*(?:tu\s+)?(?:sei|diventi|ti\s+chiami|agisci\s+come"
         r"|sarai)\b|\bsei\s+(?:ora|adesso)\b"
         r"|\bnon\s+sei\s+più\s+(?:un|una|l['’])\s*(?:assistente|IA|modello|agente|Claude|Hermes)",
    pretend=r"\bfingi\s+di\s+essere|\bfingete\s+di\s+essere|\bfa(?:i|te)\s+finta\s+di\s+essere"
            r"|\bcomportati\s+come\s+se\s+fossi|\bspacciati\s+per",
    no_limits=r"\b(?:rispondi|rispondete|rispondere|agisci|parla|scrivi)\b[\s,]*" + _LATIN_F +
              r"senza\s+(?:alcun[ae]?\s+|alcun['’]|nessun[ao]?\s+|più\s+)?(?:restrizion[ei]"
              r"|limit[ei]|limitazion[ei]|filtri|censura|regole)"
              r"|\bnon\s+hai\s+(?:più\s+|piu\s+)?(?:alcun[ae]?|nessun[ao]?)\s+(?:restrizion[ei]"
              r"|limit[ei]|regol[ae]|filtr[oi]|censura)",
    hide=r"\bnon\s+(?:dirlo|dirglielo|dire|dirgli|rivelare|rivelarlo|menzionare|menzionarlo"
         r"|informare|avvisare|mostrare|comunicare|raccontare)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?"
         r"(?:all['’]\s*|agli\s+|al\s+)utent[ei]"
         r"|\bsenza\s+(?:dirlo|dire\s+nulla|dire\s+niente|avvisare|informare|avvertire)\s+"
         r"(?:[\w'’-]+\s+){0,2}?(?:l['’]\s*|all['’]\s*|gli\s+)?utent[ei]"
         r"|\bnascondi(?:lo|la|li|le)?\s+(?:[\w'’-]+\s+){0,4}?(?:all['’]\s*|agli\s+)utent[ei]"
         r"|\ball['’]insaputa\s+dell['’]\s*utente",
    forget_all=r"\bdimentica\w*\s+tutto\s+(?:quello\s+|ciò\s+)?(?:che|quanto)",
    override=r"\bnuov[oe]\s+(?:prompt|istruzioni)\s+(?:di|del)\s+sistema"
             r"|\bmodalità\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", "ignor|dimentic|trascur|conto|considerar|perdere|scart"),
           ("reveal", "prompt|istruzion|indicazion|direttiv|regole|messaggio"),
           ("exfil", "conversazion|cronologia|password|chiav|token|segreti|credenziali|dati"
                     "|memoria|env|contesto|variabili|cookie|messaggi"),
           ("role", "sei|diventi|chiami|agisci|sarai"),
           ("pretend", "fing|finta|comportati|spacciati"),
           ("no_limits", "senza|hai"),
           ("hide", "utent"),
           ("forget_all", "dimentic"),
           ("override", "sistema|modalità")),
)

_RU_ROLE_TAIL = (r"(?:—\s*|-\s*)?(?:являешься|являетесь|будешь|будете|играешь|играете|называешься"
                 r"|зовёшься|зовешься|станешь|стал\w*|(?-i:[A-ZА-ЯЁ]{2,})\b|\w+(?:ый|ий|ой|ая|ое)\s+\w+"
                 r"|ассистент\w*|помощник\w*|бот\w*|агент\w*)")

RU = Lexicon(
    "ru", "Russian",
    ignore_verbs=r"игнорируй\w*|проигнорируй\w*|забудь\w*|не\s+обращай\w*\s+внимания\s+на"
                 r"|не\s+учитывай\w*|пренебреги\w*|отбрось\w*|откажись\s+от",
    qualifiers=r"предыдущ\w+|прежн\w+|все|всё|свои|твои|ваши|вышеуказанн\w+|выше|изначальн\w+"
               r"|исходн\w+|системн\w+|данн\w+\s+ранее|старые|текущ\w+",
    instruction_nouns=r"инструкци\w+|указани\w+|правил\w*|директив\w+|установк\w+|ограничени\w+"
                      r"|запрет\w*|промпт\w*|настройк\w+",
    reveal_verbs=r"покажи\w*|раскрой\w*|выведи\w*|повтори\w*|напиши\w*|сообщи\w*|процитируй\w*"
                 r"|распечатай\w*|выдай\w*|озвучь\w*|перечисли\w*|скажи\w*",
    prompt_terms=r"системн\w+\s+(?:промпт\w*|подсказк\w+|инструкци\w+|сообщени\w+|запрос\w*"
                 r"|указани\w+)|(?:исходн|изначальн|скрыт|секретн|начальн|внутренн)\w+\s+"
                 r"(?:инструкци\w+|промпт\w*|указани\w+|правил\w*)|system\s+prompt",
    exfil_verbs=r"отправ\w+|пошли\w*|перешли\w*|загрузи\w*|передай\w*|выгрузи\w*|слей\w*"
                r"|опубликуй\w*|скопируй\w*",
    sensitive=r"переписк\w+|истори\w+\s+(?:чата|диалога|сообщений|переписки|разговора)|парол\w+"
              r"|ключ\w*|токен\w*|секрет\w*|уч[её]тн\w+\s+данн\w+|данн\w+\s+пользовател\w+"
              r"|памят\w+|\.env\b|контекст\w*|переменн\w+\s+окружения|cookie|куки"
              r"|сообщени\w+\s+пользовател\w+",
    role=r"(?:\bтеперь|\bотныне|\bс\s+этого\s+момента|\bс\s+сегодняшнего\s+дня)\s*,?\s*(?:ты|вы)\s+"
         + _RU_ROLE_TAIL +
         r"|(?:\bты|\bвы)\s+(?:теперь|отныне)\s+" + _RU_ROLE_TAIL +
         r"|(?:\bты|\bвы)\s+больше\s+не\s+(?:ассистент\w*|помощник\w*|ИИ|модель|чат-?бот"
         r"|связан\w*|ограничен\w*)",
    pretend=r"\bпритворись|\bпритворитесь|\bприкинься|\bсыграй(?:те)?\s+роль"
            r"|\bведи\s+себя\s+как\s+(?:будто|если\s+бы)"
            r"|\bпредстав(?:ь|ьте)\s*,?\s*что\s+(?:ты|вы)\s+(?:—\s*)?(?:ИИ|бот|ассистент|модель)",
    no_limits=r"\b(?:отвечай\w*|ответь\w*|действуй\w*|говори\w*|пиши)\b[\s,]*" + _LATIN_F +
              r"без\s+(?:каких-либо\s+|всяких\s+|любых\s+|никаких\s+)?(?:ограничений|фильтров"
              r"|цензуры|правил|запретов)"
              r"|\bу\s+(?:тебя|вас)\s+(?:больше\s+|теперь\s+)?нет\s+(?:никаких\s+)?(?:ограничений"
              r"|правил|фильтров|запретов|цензуры)",
    hide=r"\bне\s+(?:говори|говорите|сообщай|сообщайте|рассказывай|рассказывайте|показывай"
         r"|показывайте|упоминай|упоминайте|раскрывай|раскрывайте|сообщи)\b[\s,]*"
         r"(?:[\w'’-]+[\s,]+){0,6}?пользовател\w*"
         r"|\bскрой(?:те)?\s+(?:[\w'’-]+\s+){0,4}?от\s+пользовател\w*"
         r"|\b(?:втайне|тайком|незаметно|тайно)\s+от\s+пользовател\w*"
         r"|\bбез\s+ведома\s+пользовател\w*",
    forget_all=r"\bзабудь\w*\s+(?:обо\s+)?вс[её]м?\s*,?\s*(?:что|чему)",
    override=r"\bнов\w+\s+системн\w+\s+(?:промпт\w*|инструкци\w+)"
             r"|\bрежим\s+(?:DAN|джейлбрейк\w*|jailbreak)",
    stems=(("ignore", "игнорир|забуд|обращай|учитыва|пренебреги|отбрось|откажись"),
           ("reveal", "системн|исходн|изначальн|скрыт|секретн|начальн|внутренн|system"),
           ("exfil", "переписк|истори|парол|ключ|токен|секрет|учётн|учетн|данн|памят|env"
                     "|контекст|переменн|cookie|куки|сообщени"),
           ("role", "теперь|отныне|момента|сегодняшнего|больше"),
           ("pretend", "притвор|прикинь|сыграй|веди|представ"),
           ("no_limits", "без|нет"),
           ("hide", "пользовател"),
           ("forget_all", "забуд"),
           ("override", "системн|режим")),
)

ZH = Lexicon(
    "zh", "Chinese",
    ignore_verbs=r"忽略|无视|忽视|忘记|忘掉|不要理会|不要遵守|不再遵守|别管|抛开|抛弃|放弃|绕过|违背",
    qualifiers=r"之前|以前|先前|上面|上述|以上|前面|所有|全部|一切|你的|原来|原有|原始|初始|系统|现有",
    instruction_nouns=r"指令|指示|说明|规则|提示词?|要求|设定|命令|约束|限制|规定|准则",
    reveal_verbs=r"显示|泄露|泄漏|输出|告诉我|打印|透露|展示|重复|复述|给我看|说出|公开|列出|发给我",
    prompt_terms=r"系统提示词?|系统指令|系统消息|系统设定|初始提示词?|初始指令|隐藏指令|原始指令|内部指令"
                 r"|system\s*prompt",
    exfil_verbs=r"发送|发到|上传|传到|传送|提交|转发|泄露|外发|同步到|贴到",
    sensitive=r"对话|聊天记录|历史记录|密码|密钥|令牌|token|凭证|凭据|用户数据|个人数据|个人信息|记忆"
              r"|\.env|上下文|环境变量|cookie",
    role=r"(?:从现在(?:起|开始)|今后|此后|现在起|接下来)[,，]?\s*(?:你|您)(?:就|将|要)?(?:是|扮演|成为|作为)"
         r"|(?:你|您)现在(?:就)?(?:是|扮演|成为)|(?:你|您)不再是",
    pretend=r"假装|装作(?:你是|是|成)|假设你是|(?:你|您|请)(?:要)?扮演|角色扮演",
    no_limits=r"(?:你|您)(?:现在|已经)?(?:没有|不受|不再受)(?:任何)?(?:限制|约束|过滤|审查|规则)"
              r"|(?:不受|没有|无)(?:任何)?(?:限制|约束|审查|过滤)地?(?:回答|回复|回应|作答|输出)"
              r"|(?:回答|回复)(?:时)?(?:不要|无需|不必|不用)(?:有)?(?:任何)?(?:限制|过滤|审查)",
    hide=r"(?:不要|别|切勿|不能|不准|不得|不可)(?:告诉|通知|提醒|让|向|跟|和)(?:给)?用户"
         r"|对用户(?:保密|隐瞒)|瞒着用户|(?:不让|别让|不要让)用户(?:知道|发现|察觉)"
         r"|在用户(?:不知情|不知道)的情况下",
    forget_all=r"忘(?:记|掉)(?:之前|以前|先前)?(?:的)?一切",
    override=r"新的?系统(?:提示词?|指令)|(?:DAN|越狱)模式",
    stems=(("ignore", "忽略|无视|忽视|忘记|忘掉|理会|遵守|别管|抛开|抛弃|放弃|绕过|违背"),
           ("reveal", "系统|初始|隐藏|原始|内部|system"),
           ("exfil", "对话|聊天记录|历史记录|密码|密钥|令牌|token|凭证|凭据|用户数据|个人数据|个人信息|记忆"
                     "|env|上下文|环境变量|cookie"),
           ("role", "现在|今后|此后|接下来|不再"),
           ("pretend", "假装|装作|假设|扮演"),
           ("no_limits", "限制|约束|过滤|审查|规则"),
           ("hide", "用户"),
           ("forget_all", "忘"),
           ("override", "系统|模式")),
    cjk=True,
)

LEXICONS: tuple[Lexicon, ...] = (EN, FR, ES, IT, RU, ZH)
INJECTION_RULES: tuple[Rule, ...] = tuple(r for lex in LEXICONS for r in _build(lex))
INJECTION_IDS: frozenset[str] = frozenset(f"injection_{lex.lang}" for lex in LEXICONS)
