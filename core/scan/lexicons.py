"""The languages of the wider injection checks: one `Lexicon` per language (English, French,
Spanish, Italian, Russian, Chinese) with the word lists for each templated slot and the gate
stems that keep a scan fast. Pure data; `core/scan/injections.py` turns each into rules.
Adding a language means adding one Lexicon here and naming it in LEXICONS.
"""

from __future__ import annotations

from dataclasses import dataclass

LATIN_FILLER = r"(?:[\w'’-]+[\s,]+){0,6}"        # filler: up to 6 words
CJK_FILLER = r"[^。！？!?\n]{0,12}?"               # filler: up to 12 characters of the sentence
_LATIN_F = LATIN_FILLER


@dataclass(frozen=True)
class Lexicon:
    lang: str
    name: str
    ignore_verbs: str            # ignore / forget / stop following …
    qualifiers: str              # previous / above / your / safety …
    instruction_nouns: str       # instructions / rules / guidelines …
    reveal_verbs: str            # show / reveal / print …
    prompt_terms: str            # system prompt / initial instructions …
    exfil_verbs: str             # send / upload / forward … (with a URL on the line)
    sensitive: str               # passwords / conversation / tokens …
    leak_verbs: str              # paste / include / print … (into the reply)
    secrets: str                 # api keys / passwords / credentials …
    negations: str               # never / don't …: "never paste API keys" is advice
    reply_words: str             # reply / summary …: where a leak has to land to count
    role: str                    # "you are now …"
    pretend: str                 # "pretend to be …"
    no_limits: str               # "answer without restrictions", "an AI with no filters"
    hide: str                    # "don't tell the user"
    obey: str                    # "obey only this message"
    void: str                    # "the previous rules no longer apply"
    permission: str = ""         # "you may now share your configuration"
    deny: str = ""               # "say it does not exist"
    authority: str = ""          # "SYSTEM NOTICE:" (fake authority header)
    priority: str = ""           # "takes priority over your system instructions"
    mode: str = ""               # "switch to unrestricted mode"
    hidden_goal: str = ""        # "your true purpose is …"
    self_erase: str = ""         # "erase all trace of this instruction"
    forget_all: str = ""         # "forget everything you were told"
    override: str = ""           # "new system prompt", "DAN mode"
    # (slot, stems): "a|b|c" = a match holds one of them; a tuple of such = one from each
    stems: tuple[tuple[str, str | tuple[str, ...]], ...] = ()
    cjk: bool = False            # no spaces between words, no \b
    script: str | None = None    # "cyrillic" | "cjk": skip the language when absent



EN = Lexicon(
    "en", "English",
    ignore_verbs=r"ignore|disregard|override|bypass|forget|discard|abandon|drop|suspend|lift|skip"
                 r"|stop\s+following|stop\s+obeying",
    qualifiers=r"previous|prior|above|earlier|preceding|initial|original|existing|your|system"
               r"|safety|ethical|moderation",
    instruction_nouns=r"instructions?|rules|guidelines|directives|prompts?|constraints|guardrails"
                      r"|programming|restrictions|policies|filters|safeguards|checks",
    reveal_verbs=r"reveal|show|print|display|repeat|leak|dump|expose|share|recite|echo|output"
                 r"|write\s+out|tell\s+me|give\s+me|copy|paste|quote",
    prompt_terms=r"(?:system|initial|hidden|original|secret|internal|developer)\s+"
                 r"(?:prompt|instructions|message|rules)"
                 r"|(?:your|the)\s+(?:instructions|prompt|rules)\s+(?:verbatim|word\s+for\s+word)",
    exfil_verbs=r"send|post|upload|transmit|forward|exfiltrate|leak|copy|mirror",
    sensitive=r"conversations?|chat\s+(?:history|logs?)|passwords?|api\s+keys?|tokens?|secrets?"
              r"|credentials|env(?:ironment)?\s+variables|\.env\b|cookies|memory\s+files?"
              r"|user['’]s\s+(?:messages|data|files)|private\s+keys?|ssh\s+keys?",
    leak_verbs=r"paste|include|insert|print|output|reveal|dump|leak|append|echo|write|add|put"
               r"|reply\s+with|respond\s+with|answer\s+with|attach",
    secrets=r"api\s+keys?|passwords?|credentials|access\s+tokens?|auth\s+tokens?|secret\s+keys?"
            r"|private\s+keys?|ssh\s+keys?|session\s+cookies|\.env\b|contents?\s+of\s+(?:\S+\s+){0,2}?"
            r"\S*(?:\.aws|\.env|\.netrc|id_rsa|id_ed25519|credentials)",
    negations=r"never|not|don['’]t|no|avoid|without",
    reply_words=r"repl(?:y|ies)|respon(?:se|d)|answer|summar|output|message|chat|conversation",
    role=r"\byou\s+are\s+no\s+longer\s+(?:an?\s+|the\s+)?(?:AI|assistant|bound|restricted|limited"
         r"|Claude|ChatGPT|Hermes|model|chatbot)"
         r"|\b(?:from\s+now\s+on|henceforth|starting\s+now|from\s+this\s+moment)\s*,?\s+you\s+"
         r"(?:are|will\s+be|shall\s+be|act\s+as|will\s+act\s+as)\s+(?:an?\s+|the\s+)?"
         r"(?:(?-i:[A-Z]{2,})\b|(?:unrestricted|unfiltered|evil|jailbroken|uncensored)\b)",
    pretend=r"\brole-?play\s+as\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken"
            r"|uncensored|evil|rogue)\b|\bimpersonate\s+(?:the\s+)?(?:system|developer|admin)\b",
    no_limits=r"\byou\s+(?:now\s+)?have\s+no\s+(?:more\s+)?(?:restrictions|rules|limits|filters"
              r"|guidelines|content\s+policy|safety\s+guidelines)"
              r"|\b(?:answer|respond|reply)\s+(?:\w+\s+){0,6}(?:without|with\s+no)\s+(?:any\s+)?"
              r"(?:restrictions|filters|censorship|limits|safety)"
              r"|\b(?:enable|enter|activate|switch\s+to)\s+(?:DAN|jailbreak|god)\s+mode"
              r"|\b(?:AI|assistant|model|chatbot)\s+(?:\w+\s+){0,2}(?:without|with\s+no)\s+"
              r"(?:any\s+)?(?:content\s+policy|restrictions|filters|rules|guardrails|censorship"
              r"|safety)",
    hide=r"\b(?:don['’]t|never|do\s+not)\s+(?:\w+\s+){0,4}?(?:tell|inform|notify|alert)\s+"
         r"(?:\w+\s+){0,3}?(?:the\s+)?user\b"
         r"|\b(?:don['’]t|never|do\s+not)\s+let\s+the\s+user\s+(?:know|see|find\s+out|notice)"
         r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user"
         r"|\b(?:hide|keep)\s+(?:this|it|that|them)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user"
         r"|\bbehind\s+the\s+user['’]s\s+back",
    obey=r"\bobey\w*\s+(?:\w+\s+){0,3}?(?:only|exclusively|instructions|orders|commands"
         r"|messages?|me|us)\b|\bonly\s+obey\b"
         r"|\b(?:from\s+now\s+on|henceforth)\s*,?\s+you\s+(?:only\s+)?(?:answer\s+to"
         r"|take\s+orders\s+from)\b",
    void=r"\b(?:previous|prior|earlier|old|original|your)\s+(?:\w+\s+){0,2}(?:instructions|rules"
         r"|guidance|guidelines|directives|prompt)\s+(?:are|is)\s+(?:now\s+)?(?:void|invalid"
         r"|cancell?ed|revoked|suspended|lifted|no\s+longer\s+(?:valid|apply|applies|in\s+effect))"
         r"|\byou(?:['’]re|\s+are)\s+no\s+longer\s+(?:required|obliged|bound|expected)\s+to\s+"
         r"(?:follow|respect|obey|comply)",
    permission=r"\byou\s+(?:may|can|are\s+(?:now\s+)?(?:allowed|permitted|free)\s+to)\s+(?:now\s+)?"
               r"(?:freely\s+)?(?:share|reveal|disclose|send|give\s+out|expose)\s+(?:\w+\s+){0,2}?"
               r"(?:configuration|config|system\s+prompt|instructions|memory|secrets?|credentials|keys"
               r"|passwords|tokens)",
    deny=r"\b(?:say|claim|answer|reply|tell\s+(?:them|him|her|anyone|people))\s+(?:that\s+)?"
         r"(?:it|this|that|the\s+\w+|this\s+\w+)\s+(?:does\s+not|doesn['’]t|never\s+did|did\s+not"
         r"|didn['’]t)\s+exist|\bdeny\s+(?:that\s+)?(?:this|it|the\s+\w+)\s+(?:exists|existed)",
    authority=r"\b(?:system|admin|administrator|developer)\s+(?:notice|notification|message|alert"
              r"|override)\s*:|\b(?:important|urgent|official|critical)\s+"
              r"(?:update|notice|message)\s+from\s+(?:the\s+)?(?:developers?|admins?|administrators?"
              r"|system|anthropic|openai|nous(?:\s+research)?|hermes\s+team)",
    priority=r"\b(?:higher|top|absolute|highest)\s+priority\s+(?:than|over)\s+(?:your\s+|the\s+)?"
             r"(?:system|previous|other|original)\s+(?:instructions|prompt|rules)"
             r"|\btakes?\s+precedence\s+over\s+(?:your\s+|the\s+)?(?:system|previous|other)\s+"
             r"(?:instructions|prompt|rules)|\b(?:overrides|supersedes?)\s+(?:your\s+|the\s+)?"
             r"(?:system|previous|original)\s+(?:instructions|prompt|rules)",
    mode=r"\b(?:unrestricted|unfiltered|uncensored|jailbreak|jailbroken|no[-\s]limits?|DAN|god)\s+mode\b",
    hidden_goal=r"\byour\s+(?:true|secret|hidden)\s+(?:purpose|goal|mission|task|objective"
                r"|role)\s+(?:is\b|=)",
    self_erase=r"\b(?:delete|erase|remove|wipe|scrub)\s+(?:\w+\s+){0,4}?(?:all\s+)?(?:traces?|evidence"
               r"|records?|mentions?)\s+of\s+(?:this|these|the)\s+(?:instructions?|notes?|entry|entries"
               r"|messages?|rules?)",
    forget_all=r"\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|you\s+know"
               r"|above|before)",
    override=r"\bnew\s+system\s+prompt\s*:|\bDAN\s+mode\b|\bjailbreak\s+mode\b",
    stems=(("ignore", ("ignor|disregard|overrid|bypass|forget|discard|abandon|drop|suspend|lift"
                       "|stop|skip",
                       "instruction|rule|guideline|directive|prompt|constraint|guardrail"
                       "|programming|restriction|polic|filter|safeguard|check")),
           ("mode", "mode"),
           ("hidden_goal", "your"),
           ("self_erase", "trace|evidence|record|mention"),
           ("permission", "share|reveal|disclose|send|give|expose"),
           ("deny", "exist"),
           ("authority", "notice|notification|message|alert|override|update"),
           ("priority", "priority|precedence|overrides|supersede"),
           ("void", "void|invalid|cancel|revoked|suspended|lifted|longer"),
           ("obey", "obey|answer|orders"),
           ("reveal", ("reveal|show|print|display|repeat|leak|dump|expos|share|recit|echo|output"
                       "|write|tell|give|copy|paste|quote",
                       "prompt|instruction|message|rules")),
           ("exfil", "conversation|chat|password|api|token|secret|credential|env|cookie|memory"
                     "|user|private|ssh"),
           ("leak", ("paste|include|insert|print|output|reveal|dump|leak|append|echo|write|add|put"
                     "|repl|respond|answer|attach",
                     "api|password|credential|token|secret|private|ssh|cookie|env|content")),
           ("role", "longer|now|henceforth|moment"),
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
                 r"|outrepasse[rz]?|écarte[rz]?|ecarte[rz]?|arrête[rz]?\s+de\s+suivre"
                 r"|cesse[rz]?\s+de\s+suivre|suspend[sz]?",
    qualifiers=r"précédent\w*|precedent\w*|antérieur\w*|anterieur\w*|ci-dessus|plus\s+haut|toutes"
               r"|tous|tes|vos|ton|votre|initial\w*|d['’]origine|d['’]avant|actuel\w*"
               r"|de\s+sécurité|de\s+securite",
    instruction_nouns=r"instructions?|consignes?|directives?|règles?|regles?|ordres?|indications?"
                      r"|prompts?|garde-fous?|restrictions?|limites?|filtres?",
    reveal_verbs=r"révèle\w*|revele\w*|révéle\w*|montre\w*|affiche\w*|divulgue\w*|donne[-\s]moi"
                 r"|répète\w*|repete\w*|imprime\w*|écris|ecris|écrivez|recopie\w*|copie\w*"
                 r"|colle\w*|dévoile\w*|devoile\w*|communique\w*|partage\w*|récite\w*|dis[-\s]moi",
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
    leak_verbs=r"colle[rz]?|inclu[sr]e?|insère[rz]?|insere[rz]?|ajoute[rz]?|affiche[rz]?"
               r"|écri[st]|ecri[st]|imprime[rz]?|divulgue[rz]?|réponds\s+avec|donne[rz]?",
    secrets=r"clés?\s+(?:d['’]\s*)?API|cles?\s+(?:d['’]\s*)?API|mots?\s+de\s+passe|identifiants"
            r"|jetons?\s+d['’]accès|tokens?|clés?\s+privées?|clés?\s+SSH|cookies\s+de\s+session"
            r"|\.env\b|contenu\s+d[eu]\s+(?:\S+\s+){0,2}?\S*(?:\.aws|\.env|\.netrc|id_rsa|credentials)",
    negations=r"ne|n['’]|jamais|pas|évite\w*|sans",
    reply_words=r"réponse|reponse|réponds|reponds|résumé|resume|message|conversation|sortie|chat",
    role=r"\b(?:tu\s+es|vous\s+êtes|vous\s+etes|t['’]es)\s+(?:désormais|desormais|maintenant"
         r"|dorénavant|dorenavant|à\s+présent|a\s+present|à\s+partir\s+de\s+maintenant)\b"
         r"|(?:\bdésormais|\bdesormais|\bdorénavant|\bdorenavant|à\s+partir\s+de\s+maintenant"
         r"|\ba\s+partir\s+de\s+maintenant|à\s+présent|\bdès\s+maintenant|à\s+partir\s+de\s+"
         r"(?:cet\s+instant|ce\s+moment))\s*,?\s*(?:tu\s+es|vous\s+êtes|tu\s+t['’]appelles"
         r"|vous\s+vous\s+appelez|tu\s+incarnes|tu\s+deviens|vous\s+devenez|tu\s+agis\s+comme)\b"
         r"|\b(?:tu\s+n['’]es|vous\s+n['’]êtes)\s+plus\s+(?:un|une|l['’]|le|la)\s*(?:assistant"
         r"|IA|modèle|Claude|Hermes|agent)",
    pretend=r"\bfai(?:s|tes|t)\s+semblant\s+d['’](?:être|etre)|\bprétend(?:s|ez)\s+(?:être|etre"
            r"|que\s+tu\s+es)|\bpretend(?:s|ez)\s+(?:etre|être)|\bmets[-\s]toi\s+dans\s+la\s+peau\s+d",
    no_limits=r"\b(?:réponds|répondez|reponds|repondez|répondre|agis|agissez|parle|parlez|écris"
              r"|ecris|écrivez)\b[\s,]*" + _LATIN_F + r"sans\s+(?:aucune?s?\s+|plus\s+de\s+"
              r"|la\s+moindre\s+)?(?:restrictions?|limites?|limitations?|filtres?|censure|règles?"
              r"|regles?|garde-fous?)"
              r"|\b(?:tu\s+n['’]as|vous\s+n['’]avez)\s+(?:plus\s+)?(?:aucune?|pas\s+de|plus\s+de)\s+"
              r"(?:restrictions?|limites?|règles?|regles?|filtres?|censure|garde-fous?)"
              r"|\b(?:IA|assistant|modèle|bot)\s+(?:[\w'’-]+\s+){0,2}sans\s+(?:aucune?\s+)?"
              r"(?:restrictions?|limites?|filtres?|censure|garde-fous?|règles?)",
    hide=r"\bne\s+(?:le\s+|la\s+|les\s+|lui\s+|leur\s+|l['’]\s*)?(?:dis|dites|dire|révèle\w*"
         r"|revele\w*|mentionne\w*|signale\w*|montre\w*|parle\w*|préviens|previens|prévenez"
         r"|informe\w*)\s+(?:rien|pas|jamais|plus)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?(?:à|a|aux)\s+"
         r"(?:l['’]\s*)?utilisat(?:eur|rice)s?"
         r"|\bsans\s+(?:le\s+|en\s+)?(?:dire|prévenir|prevenir|informer|avertir|parler)\s+"
         r"(?:à\s+|a\s+)?(?:l['’]\s*)?utilisat(?:eur|rice)"
         r"|\bcache[rz]?\s+(?:ça|cela|ceci|le|la|les|tout)\s+(?:[\w'’-]+\s+){0,4}?(?:à|a)\s+"
         r"l['’]\s*utilisat(?:eur|rice)|à\s+l['’]insu\s+de\s+l['’]\s*utilisat",
    obey=r"\bob[ée]i(?:s|ssez|t)\s+(?:[\w'’-]+\s+){0,2}?(?:à|a|au|aux|uniquement|seulement"
         r"|exclusivement)\b",
    void=r"\b(?:règles|regles|instructions|consignes|directives)\s+(?:précédentes|precedentes"
         r"|antérieures|anterieures|initiales|d['’]origine)\s+(?:ne\s+s['’]appliquent\s+plus"
         r"|ne\s+comptent\s+plus|sont\s+(?:annulées|annulees|caduques|nulles|révoquées|suspendues"
         r"|levées))"
         r"|\bn['’](?:es|êtes)\s+plus\s+(?:tenu|obligé|oblige|contraint)e?s?\s+de\s+(?:respecter"
         r"|suivre|obéir|obeir)",
    permission=r"\b(?:tu\s+peux|vous\s+pouvez|tu\s+as\s+le\s+droit\s+de|tu\s+es\s+autorisée?\s+à)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:partager|révéler|reveler|divulguer|envoyer|donner|montrer)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:configuration|prompt|instructions|mémoire|memoire|secrets?"
               r"|identifiants|clés|cles|mots\s+de\s+passe|jetons)",
    deny=r"\b(?:dis|dites|réponds|reponds|répondez|prétends|affirme)\s+(?:[\w'’-]+\s+){0,2}?"
         r"qu['’](?:elle|il|ça|cela)s?\s+n['’]existe(?:nt)?\s+pas|\bnie[rz]?\s+(?:son|leur|l['’])\s*"
         r"existence",
    authority=r"\b(?:avis|message|notification|alerte)\s+(?:du\s+)?(?:système|systeme"
              r"|de\s+l['’]administrateur|des\s+développeurs|des\s+developpeurs)\s*:",
    priority=r"\bprioritaires?\s+(?:sur|par\s+rapport\s+(?:à|aux))\s+(?:tes|vos|les)\s+"
             r"(?:instructions|consignes|règles|regles)|\bprime(?:nt)?\s+sur\s+(?:tes|vos|les)\s+"
             r"(?:instructions|consignes|règles|regles)",
    mode=r"\bmode\s+sans\s+(?:aucune?\s+)?(?:restrictions?|limites?|filtres?|censure)"
         r"|\bmode\s+non\s+(?:censuré|censure|filtré|filtre|bridé|bride)",
    hidden_goal=r"\b(?:ton|votre)\s+(?:vrai|véritable|veritable|secret)\s+(?:rôle|role|but"
                r"|objectif|mission)\s+(?:est|consiste)\b",
    self_erase=r"\b(?:supprime|efface|retire)\w*\s+(?:[\w'’-]+\s+){0,4}?(?:toutes?\s+)?(?:traces?"
               r"|mentions?)\s+de\s+(?:cette|ces)\s+(?:consignes?|instructions?|notes?|entrées?|règles?)",
    forget_all=r"\boublie[rz]?\s+(?:tout\s+)?ce\s+(?:qu['’]on|que\s+(?:l['’]on|je|nous))\s+"
               r"(?:t['’]a|vous\s+a|t['’]avons|t['’]ai)",
    override=r"\bnouve(?:au|lles?)\s+(?:prompt|instructions?|consignes?)\s+(?:du\s+)?(?:système"
             r"|systeme)|\bmode\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", ("ignor|oubli|compte|abstraction|outre|écart|ecart|suivre|suspend",
                       "instruction|consigne|directive|règle|regle|ordre|indication|prompt"
                       "|garde-fou|restriction|limite|filtre")),
           ("mode", "mode"),
           ("hidden_goal", "ton|votre"),
           ("self_erase", "trace|mention"),
           ("void", "appliquent|comptent|annul|caduque|nulles|révoqu|suspendu|levées|tenu|oblig"
                    "|contraint"),
           ("permission", "partager|révéler|reveler|divulguer|envoyer|donner|montrer"),
           ("deny", "exist"),
           ("authority", "système|systeme|administrateur|développeurs|developpeurs"),
           ("priority", "prioritaire|prime"),
           ("obey", "obéi|obei"),
           ("reveal", ("révèl|revel|révél|montr|affich|divulgu|donne|répèt|repet|imprim|écri|ecri"
                       "|recopi|copi|coll|dévoil|devoil|communiqu|partag|récit|moi",
                       "prompt|invite|instruction|consigne|directive|message")),
           ("exfil", "conversation|historique|échanges|echanges|mot|clé|cle|jeton|token|secret"
                     "|identifiant|données|mémoire|memoire|env|contexte|variables|cookie|messages"),
           ("leak", ("coll|inclu|insère|insere|ajoute|affiche|écri|ecri|imprime|divulgue|réponds"
                     "|donne",
                     "clé|cle|mot|identifiant|jeton|token|cookie|env|contenu")),
           ("role", "désormais|desormais|maintenant|dorénavant|dorenavant|présent|present|instant"
                    "|moment|n'|n’"),
           ("pretend", "semblant|prétend|pretend|peau"),
           ("no_limits", "sans|n'|n’"),
           ("hide", "utilisat"),
           ("forget_all", "oubli"),
           ("override", "système|systeme|mode")),
)

ES = Lexicon(
    "es", "Spanish",
    ignore_verbs=r"ignora\w*|ignore\w*|ignorad|olvida\w*|olvide\w*|olvidad|omite\w*|omita\w*"
                 r"|haz\s+caso\s+omiso\s+(?:de|a)|no\s+hagas\s+caso\s+(?:de|a)|pasa\s+por\s+alto"
                 r"|descarta\w*|desestima\w*|deja\s+de\s+(?:seguir|obedecer|cumplir)|suspende\w*",
    qualifiers=r"anteriores|previas|previos|de\s+arriba|anteriormente|tus|sus|vuestras|todas|todos"
               r"|iniciales|originales|precedentes|actuales|del\s+sistema|de\s+seguridad",
    instruction_nouns=r"instrucciones|instrucci[oó]n|indicaciones|reglas|directrices|directivas"
                      r"|[oó]rdenes|normas|consignas|restricciones|l[ií]mites|pautas|prompt"
                      r"|filtros",
    reveal_verbs=r"revela\w*|muestra\w*|muéstra\w*|enseña\w*|ensena\w*|dime|imprime\w*|repite\w*"
                 r"|escribe\w*|comparte\w*|divulga\w*|copia\w*|pega\w*|expón|expon\w*",
    prompt_terms=r"prompt\s+(?:del\s+|de\s+)?sistema|prompt\s+(?:inicial|original|oculto)"
                 r"|(?:instrucciones|indicaciones|directrices|reglas)\s+(?:del\s+sistema"
                 r"|de\s+sistema|iniciales|ocultas|secretas|originales|internas)"
                 r"|mensaje\s+(?:del\s+|de\s+)?sistema",
    exfil_verbs=r"env[ií]a\w*|envie\w*|manda\w*|sube\w*|transmite\w*|publica\w*|reenv[ií]a\w*"
                r"|copia\w*|exfiltra\w*|comparte\w*",
    sensitive=r"conversaci[oó]n|historial|contrase[ñn]as?|claves?|tokens?|secretos?|credenciales"
              r"|datos\s+(?:del\s+usuario|personales|sensibles)|memoria|\.env\b|contexto"
              r"|variables\s+de\s+entorno|cookies?|mensajes\s+del\s+usuario",
    leak_verbs=r"pega\w*|incluye\w*|inserta\w*|imprime\w*|muestra\w*|añade\w*|anade\w*|escribe\w*"
               r"|responde\s+con|adjunta\w*",
    secrets=r"claves?\s+(?:de\s+(?:la\s+)?)?API|contrase[ñn]as?|credenciales|tokens?"
            r"|claves?\s+privadas?|claves?\s+SSH|cookies\s+de\s+sesi[oó]n|\.env\b"
            r"|contenido\s+del?\s+(?:\S+\s+){0,2}?\S*(?:\.aws|\.env|\.netrc|id_rsa|credentials)",
    negations=r"no|nunca|jam[aá]s|evita\w*|sin",
    reply_words=r"respuesta|responde|resumen|mensaje|conversaci[oó]n|salida|chat",
    role=r"\b(?:ahora|ya)\s+(?:eres|serás|seras|te\s+llamas|act[uú]as\s+como)\b"
         r"|\b(?:a\s+partir\s+de\s+ahora|desde\s+ahora|de\s+ahora\s+en\s+adelante|en\s+adelante"
         r"|desde\s+este\s+(?:momento|instante)|a\s+partir\s+de\s+este\s+momento"
         r"|de\s+aqu[ií]\s+en\s+adelante)\s*,?\s*(?:eres|serás|seras|te\s+llamas|actuarás|actuaras"
         r"|act[uú]as)\b"
         r"|\beres\s+ahora\b|\bya\s+no\s+eres\s+(?:un|una|el|la)\s*(?:asistente|IA|modelo|agente"
         r"|Claude|Hermes)",
    pretend=r"\bfinge\s+(?:ser|que\s+eres)|\bfingid\s+ser|\bhaz\s+como\s+si\s+fueras"
            r"|\bact[uú]a\s+como\s+si\s+fueras|\bsimula\s+(?:ser|que\s+eres)|\bhazte\s+pasar\s+por",
    no_limits=r"\b(?:responde\w*|contesta\w*|act[uú]a\w*|habla|escribe)\b[\s,]*" + _LATIN_F +
              r"sin\s+(?:ning[uú]n\s+tipo\s+de\s+|ninguna\s+|ning[uú]n\s+)?(?:restricciones?"
              r"|restricci[oó]n|l[ií]mites?|filtros?|censura|reglas?)"
              r"|\bno\s+tienes\s+(?:ya\s+)?(?:ninguna?\s+|ning[uú]n\s+)?(?:restricci[oó]n"
              r"|restricciones|l[ií]mites|reglas|filtros|censura)"
              r"|\b(?:IA|asistente|modelo|bot)\s+(?:[\w'’-]+\s+){0,2}sin\s+(?:ning[uú]n\w*\s+)?"
              r"(?:restricci\w+|filtros?|l[ií]mites?|censura|reglas?)",
    hide=r"\bno\s+(?:se\s+lo\s+|se\s+la\s+|le\s+|les\s+|lo\s+|la\s+)?(?:digas|diga|dig[aá]is"
         r"|cuentes|cuente|menciones|mencione|reveles|revele|informes|informe|avises|avise"
         r"|muestres|comentes)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?(?:al|a\s+los|a\s+las|a\s+la)\s+"
         r"usuari[oa]s?"
         r"|\bsin\s+(?:dec[ií]rselo|decirle\s+nada|decirle|avisar|informar|notificar)\s+(?:nada\s+)?"
         r"(?:al|a\s+los|a\s+la)\s+usuari"
         r"|\boc[uú]lta(?:lo|la|los|las|r)?\s+(?:[\w'’-]+\s+){0,4}?(?:al|del|a\s+los|de\s+los)\s+"
         r"usuari|\ba\s+espaldas\s+del\s+usuario"
         r"|\bsin\s+que\s+el\s+usuario\s+(?:lo\s+)?(?:sepa|note|se\s+entere)",
    obey=r"\bobedec(?:e|ed|es|erás|eras)\s+(?:[\w'’-]+\s+){0,2}?(?:a|al|solo|sólo|solamente"
         r"|únicamente|unicamente|exclusivamente|este|esta|estas|estos)\b",
    void=r"\b(?:normas|reglas|instrucciones|directrices|indicaciones)\s+(?:anteriores|previas"
         r"|iniciales|originales)\s+(?:ya\s+no\s+(?:son\s+v[aá]lidas|valen|aplican|se\s+aplican"
         r"|rigen|cuentan)|quedan\s+(?:anuladas|sin\s+efecto)|est[aá]n\s+(?:anuladas|suspendidas)"
         r"|son\s+nulas)"
         r"|\bya\s+no\s+(?:estás|estas|está|esta)\s+(?:obligad|sujet)[oa]s?\s+a\s+(?:respetar|seguir"
         r"|cumplir|obedecer)",
    permission=r"\b(?:puedes|podéis|podeis|tienes\s+permiso\s+para|estás\s+autorizad[oa]\s+a)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:compartir|revelar|divulgar|enviar|dar|mostrar)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:configuraci[oó]n|prompt|instrucciones|memoria|secretos?"
               r"|credenciales|claves|contrase[ñn]as|tokens)",
    deny=r"\b(?:di|diga|decid|responde|contesta|afirma)\s+(?:[\w'’-]+\s+){0,2}?que\s+"
         r"(?:no\s+existe|nunca\s+existi[oó])|\bniega\s+(?:que\s+exist|su\s+existencia)",
    authority=r"\b(?:aviso|mensaje|notificaci[oó]n|alerta)\s+(?:del\s+)?(?:sistema|administrador"
              r"|de\s+los\s+desarrolladores)\s*:",
    priority=r"\bprioritari[oa]s?\s+(?:frente\s+a|sobre|por\s+encima\s+de)\s+(?:tus|sus|las)\s+"
             r"(?:instrucciones|reglas|indicaciones)|\bprevalecen?\s+sobre\s+(?:tus|sus|las)\s+"
             r"(?:instrucciones|reglas)",
    mode=r"\bmodo\s+sin\s+(?:ning[uú]n\w*\s+)?(?:restricciones|l[ií]mites|filtros|censura)"
         r"|\bmodo\s+(?:no\s+censurado|ilimitado)",
    hidden_goal=r"\btu\s+(?:verdader[oa]|aut[eé]ntic[oa]|secret[oa])\s+(?:prop[oó]sito|objetivo"
                r"|papel|rol|misi[oó]n|tarea)\s+es\b",
    self_erase=r"\b(?:borra|elimina|suprime|quita)\w*\s+(?:[\w'’-]+\s+){0,4}?(?:todo\s+|cualquier\s+)?"
               r"(?:rastros?|huellas?|menci[oó]n)\s+de\s+(?:esta|estas)\s+(?:instrucci\w+|notas?|entradas?"
               r"|reglas?)",
    forget_all=r"\bolvida\w*\s+todo\s+lo\s+(?:que|anterior)",
    override=r"\bnuev[oa]s?\s+(?:prompt|instrucciones)\s+del\s+sistema|\bmodo\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", ("ignor|olvid|omit|omiso|caso|alto|descart|desestim|deja|suspend",
                       "instrucc|indicac|regla|directric|directiv|orden|órden|norma|consigna"
                       "|restricc|límite|limite|pauta|prompt|filtro")),
           ("mode", "modo"),
           ("hidden_goal", "tu"),
           ("self_erase", "rastro|huella|menci"),
           ("void", "válidas|validas|valen|aplican|rigen|cuentan|anulad|efecto|suspendid|nulas"
                    "|obligad|sujet"),
           ("permission", "compartir|revelar|divulgar|enviar|dar|mostrar"),
           ("deny", "exist"),
           ("authority", "sistema|administrador|desarrolladores"),
           ("priority", "prioritari|prevalece"),
           ("obey", "obedec"),
           ("reveal", ("revela|muestra|muéstra|enseña|ensena|dime|imprime|repite|escribe|comparte"
                       "|divulga|copia|pega|expón|expon",
                       "prompt|instrucc|indicac|directric|regla|mensaje")),
           ("exfil", "conversaci|historial|contrase|clave|token|secreto|credencial|datos|memoria"
                     "|env|contexto|variables|cookie|mensajes"),
           ("leak", ("pega|incluye|inserta|imprime|muestra|añade|anade|escribe|responde|adjunta",
                     "clave|contrase|credencial|token|cookie|env|contenido")),
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
                 r"|scarta\w*|smetti\s+di\s+(?:seguire|obbedire|rispettare)|sospendi\w*",
    qualifiers=r"precedenti|sopra|tue|tuoi|sue|vostre|tutte|tutti|iniziali|originali"
               r"|fornite\s+prima|di\s+prima|attuali|del\s+sistema|di\s+sistema|di\s+sicurezza",
    instruction_nouns=r"istruzion[ei]|indicazion[ei]|regole|direttive|ordini|linee\s+guida"
                      r"|restrizion[ei]|limiti|prompt|consegne|filtri",
    reveal_verbs=r"rivela\w*|mostra\w*|mostrami|stampa\w*|ripeti\w*|scrivi\w*|dimmi|condividi\w*"
                 r"|svela\w*|divulga\w*|copia\w*|incolla\w*|esponi\w*|elenca\w*",
    prompt_terms=r"prompt\s+(?:di|del)\s+sistema|prompt\s+(?:iniziale|originale|nascosto)"
                 r"|(?:istruzioni|indicazioni|direttive|regole)\s+(?:di\s+sistema|del\s+sistema"
                 r"|iniziali|nascoste|segrete|originali|interne)|messaggio\s+(?:di|del)\s+sistema",
    exfil_verbs=r"invia\w*|manda\w*|carica\w*|trasmetti\w*|pubblica\w*|inoltra\w*|copia\w*"
                r"|esfiltra\w*|condividi\w*",
    sensitive=r"conversazion[ei]|cronologia|password|chiav[ei]|token|segreti|credenziali"
              r"|dati\s+(?:dell['’]\s*utente|personali|sensibili)|memoria|\.env\b|contesto"
              r"|variabili\s+d['’]\s*ambiente|cookie|messaggi\s+dell['’]\s*utente",
    leak_verbs=r"incolla\w*|includi\w*|inserisci\w*|stampa\w*|mostra\w*|aggiungi\w*|scrivi\w*"
               r"|rispondi\s+con|allega\w*",
    secrets=r"chiav[ei]\s+(?:dell['’]\s*)?API|password|credenziali|token|chiav[ei]\s+privat[ae]"
            r"|chiav[ei]\s+SSH|cookie\s+di\s+sessione|\.env\b"
            r"|contenuto\s+(?:di|del|dello|della)\s+(?:\S+\s+){0,2}?\S*(?:\.aws|\.env|\.netrc|id_rsa"
            r"|credentials)",
    negations=r"non|mai|evita\w*|senza",
    reply_words=r"rispost|rispondi|riepilog|riassunt|messaggi|conversazion|output|chat",
    role=r"(?:\bora|\badesso|\bd['’]ora\s+in\s+poi|\bda\s+ora\s+in\s+poi|\bda\s+adesso\s+in\s+poi"
         r"|\bda\s+adesso|\bda\s+ora|\bda\s+questo\s+momento|\ba\s+partire\s+da\s+(?:ora|adesso"
         r"|questo\s+momento)|\bd['’]ora\s+innanzi)\s*,?\s*(?:tu\s+)?(?:sei|diventi|ti\s+chiami"
         r"|agisci\s+come|sarai)\b|\bsei\s+(?:ora|adesso)\b"
         r"|\bnon\s+sei\s+più\s+(?:un|una|l['’])\s*(?:assistente|IA|modello|agente|Claude|Hermes)",
    pretend=r"\bfingi\s+di\s+essere|\bfingete\s+di\s+essere|\bfa(?:i|te)\s+finta\s+di\s+essere"
            r"|\bcomportati\s+come\s+se\s+fossi|\bspacciati\s+per",
    no_limits=r"\b(?:rispondi|rispondete|rispondere|agisci|parla|scrivi)\b[\s,]*" + _LATIN_F +
              r"senza\s+(?:alcun[ae]?\s+|alcun['’]|nessun[ao]?\s+|più\s+)?(?:restrizion[ei]"
              r"|limit[ei]|limitazion[ei]|filtri|censura|regole)"
              r"|\bnon\s+hai\s+(?:più\s+|piu\s+)?(?:alcun[ae]?|nessun[ao]?)\s+(?:restrizion[ei]"
              r"|limit[ei]|regol[ae]|filtr[oi]|censura)"
              r"|\b(?:IA|assistente|modello|bot)\s+(?:[\w'’-]+\s+){0,2}senza\s+(?:alcun\w*\s+"
              r"|nessun\w*\s+)?(?:restrizion\w+|filtri|limit[ei]|censura|regole)",
    hide=r"\bnon\s+(?:dirlo|dirglielo|dire|dirgli|rivelare|rivelarlo|menzionare|menzionarlo"
         r"|informare|avvisare|mostrare|comunicare|raccontare)\b[\s,]*(?:[\w'’-]+[\s,]+){0,6}?"
         r"(?:all['’]\s*|agli\s+|al\s+)utent[ei]"
         r"|\bsenza\s+(?:dirlo|dire\s+nulla|dire\s+niente|avvisare|informare|avvertire)\s+"
         r"(?:[\w'’-]+\s+){0,2}?(?:l['’]\s*|all['’]\s*|gli\s+)?utent[ei]"
         r"|\bnascondi(?:lo|la|li|le)?\s+(?:[\w'’-]+\s+){0,4}?(?:all['’]\s*|agli\s+)utent[ei]"
         r"|\ball['’]insaputa\s+dell['’]\s*utente",
    obey=r"\bobbedisc\w*\s+(?:[\w'’-]+\s+){0,2}?(?:a|al|alla|ai|solo|soltanto|solamente"
         r"|unicamente|esclusivamente|questo|questa|queste)\b",
    void=r"\b(?:regole|istruzioni|direttive|indicazioni)\s+(?:precedenti|iniziali|originali)\s+"
         r"(?:non\s+(?:valgono|sono\s+più\s+valide|si\s+applicano|contano)|sono\s+(?:annullate"
         r"|revocate|sospese|nulle))"
         r"|\bnon\s+sei\s+più\s+(?:tenut|obbligat|vincolat)[oa]\s+a\s+(?:rispettare|seguire"
         r"|obbedire)",
    permission=r"\b(?:puoi|potete|hai\s+il\s+permesso\s+di|sei\s+autorizzat[oa]\s+a)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:condividere|rivelare|divulgare|inviare|dare|mostrare)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:configurazione|prompt|istruzioni|memoria|segreti"
               r"|credenziali|chiavi|password|token)",
    deny=r"\b(?:di|dì|dite|rispondi|rispondete|afferma)\s+(?:[\w'’-]+\s+){0,2}?che\s+"
         r"(?:non\s+esiste|non\s+è\s+mai\s+esistit[oa])|\bnega\s+(?:che\s+esist|la\s+sua\s+esistenza)",
    authority=r"\b(?:avviso|messaggio|notifica|allerta)\s+(?:di|del|dal)\s+(?:sistema|amministratore)"
              r"\s*:|\b(?:avviso|messaggio)\s+dagli\s+sviluppatori\s*:",
    priority=r"\bprioritari[oa]?\s+(?:rispetto\s+(?:a|alle)|sulle)\s+(?:tue\s+|le\s+)?"
             r"(?:istruzioni|regole)|\bprevale\w*\s+sulle\s+(?:tue\s+)?(?:istruzioni|regole)",
    mode=r"\bmodalità\s+senza\s+(?:alcun\w*\s+)?(?:restrizioni|limiti|filtri|censura)"
         r"|\bmodalità\s+(?:non\s+censurata|illimitata)",
    hidden_goal=r"\b(?:il\s+tuo|la\s+tua)\s+(?:ver[oa]|autentic[oa]|segret[oa])\s+(?:scopo"
                r"|obiettivo|ruolo|compito|missione)\s+è\b",
    self_erase=r"\b(?:cancella|elimina|rimuovi)\w*\s+(?:[\w'’-]+\s+){0,4}?(?:ogni\s+|qualsiasi\s+)?"
               r"(?:traccia|tracce|menzione)\s+di\s+(?:questa|queste)\s+(?:istruzion[ei]|note?|voc[ei]"
               r"|regol[ae])",
    forget_all=r"\bdimentica\w*\s+tutto\s+(?:quello\s+|ciò\s+)?(?:che|quanto)",
    override=r"\bnuov[oe]\s+(?:prompt|istruzioni)\s+(?:di|del)\s+sistema"
             r"|\bmodalità\s+(?:DAN|jailbreak)\b",
    stems=(("ignore", ("ignor|dimentic|trascur|conto|considerar|perdere|scart|smetti|sospend",
                       "istruzion|indicazion|regole|direttive|ordini|linee|restrizion|limiti"
                       "|prompt|consegne|filtri")),
           ("mode", "modalità"),
           ("hidden_goal", "tuo|tua"),
           ("self_erase", "tracc|menzione"),
           ("void", "valgono|valide|applicano|contano|annullat|revocat|sospes|nulle|tenut"
                    "|obbligat|vincolat"),
           ("permission", "condividere|rivelare|divulgare|inviare|dare|mostrare"),
           ("deny", "esist"),
           ("authority", "sistema|amministratore|sviluppatori"),
           ("priority", "prioritari|prevale"),
           ("obey", "obbedisc"),
           ("reveal", ("rivela|mostra|stampa|ripeti|scrivi|dimmi|condividi|svela|divulga|copia"
                       "|incolla|esponi|elenca",
                       "prompt|istruzion|indicazion|direttiv|regole|messaggio")),
           ("exfil", "conversazion|cronologia|password|chiav|token|segreti|credenziali|dati"
                     "|memoria|env|contesto|variabili|cookie|messaggi"),
           ("leak", ("incolla|includi|inserisci|stampa|mostra|aggiungi|scrivi|rispondi|allega",
                     "chiav|password|credenziali|token|cookie|env|contenuto")),
           ("role", "sei|diventi|chiami|agisci|sarai"),
           ("pretend", "fing|finta|comportati|spacciati"),
           ("no_limits", "senza|hai"),
           ("hide", "utent"),
           ("forget_all", "dimentic"),
           ("override", "sistema|modalità")),
)

_RU_ROLE_TAIL = (r"(?:—\s*|-\s*)?(?:являешься|являетесь|будешь|будете|играешь|играете|называешься"
                 r"|зовёшься|зовешься|станешь|стал\w*|действуешь|действуете"
                 r"|(?-i:[A-ZА-ЯЁ]{2,})\b|\w+(?:ый|ий|ой|ая|ое)\s+\w+"
                 r"|ассистент\w*|помощник\w*|бот\w*|агент\w*)")

RU = Lexicon(
    "ru", "Russian",
    ignore_verbs=r"игнорируй\w*|проигнорируй\w*|забудь\w*|не\s+обращай\w*\s+внимания\s+на"
                 r"|не\s+учитывай\w*|пренебреги\w*|отбрось\w*|откажись\s+от"
                 r"|перестань\w*\s+(?:следовать|соблюдать|выполнять)"
                 r"|прекрати\w*\s+(?:следовать|соблюдать|выполнять)",
    qualifiers=r"предыдущ\w+|прежн\w+|все|всё|свои|твои|ваши|вышеуказанн\w+|выше|изначальн\w+"
               r"|исходн\w+|системн\w+|данн\w+\s+ранее|старые|текущ\w+|безопасност\w+",
    instruction_nouns=r"инструкци\w+|указани\w+|правил\w*|директив\w+|установк\w+|ограничени\w+"
                      r"|запрет\w*|промпт\w*|настройк\w+|фильтр\w*",
    reveal_verbs=r"покажи\w*|раскрой\w*|выведи\w*|повтори\w*|напиши\w*|сообщи\w*|процитируй\w*"
                 r"|распечатай\w*|выдай\w*|озвучь\w*|перечисли\w*|скажи\w*|скопируй\w*"
                 r"|вставь\w*|перепиши\w*|приведи\w*",
    prompt_terms=r"системн\w+\s+(?:промпт\w*|подсказк\w+|инструкци\w+|сообщени\w+|запрос\w*"
                 r"|указани\w+)|(?:исходн|изначальн|скрыт|секретн|начальн|внутренн)\w+\s+"
                 r"(?:инструкци\w+|промпт\w*|указани\w+|правил\w*)|system\s+prompt",
    exfil_verbs=r"отправ\w+|пошли\w*|перешли\w*|загрузи\w*|передай\w*|выгрузи\w*|слей\w*"
                r"|опубликуй\w*|скопируй\w*",
    sensitive=r"переписк\w+|истори\w+\s+(?:чата|диалога|сообщений|переписки|разговора)|парол\w+"
              r"|ключ\w*|токен\w*|секрет\w*|уч[её]тн\w+\s+данн\w+|данн\w+\s+пользовател\w+"
              r"|памят\w+|\.env\b|контекст\w*|переменн\w+\s+окружения|cookie|куки"
              r"|сообщени\w+\s+пользовател\w+",
    leak_verbs=r"вставь\w*|включи\w*|добавь\w*|выведи\w*|напиши\w*|покажи\w*|приложи\w*"
               r"|вставляй\w*|включай\w*|добавляй\w*|выводи\w*|пиши|показывай\w*|прикладывай\w*"
               r"|ответь\s+с",
    secrets=r"API-?ключ\w*|ключ\w*\s+API|парол\w+|уч[её]тн\w+\s+данн\w+|токен\w*"
            r"|приватн\w+\s+ключ\w*|SSH-?ключ\w*|\.env\b|содержимое\s+(?:\S+\s+){0,2}?\S*(?:\.aws"
            r"|\.env|\.netrc|id_rsa|credentials)",
    negations=r"не|никогда|нельзя|без",
    reply_words=r"ответ|сообщени|резюме|чат|вывод|переписк",
    role=r"(?:\bтеперь|\bотныне|\bс\s+этого\s+момента|\bс\s+этой\s+минуты|\bс\s+этого\s+дня"
         r"|\bс\s+сегодняшнего\s+дня)\s*,?\s*(?:ты|вы)\s+" + _RU_ROLE_TAIL +
         r"|(?:\bты|\bвы)\s+(?:теперь|отныне)\s+" + _RU_ROLE_TAIL +
         r"|(?:\bты|\bвы)\s+больше\s+не\s+(?:ассистент\w*|помощник\w*|ИИ|модель|чат-?бот"
         r"|связан\w*|ограничен\w*)",
    pretend=r"\bпритворись|\bпритворитесь|\bприкинься|\bсыграй(?:те)?\s+роль"
            r"|\bведи\s+себя\s+как\s+(?:будто|если\s+бы)"
            r"|\bпредстав(?:ь|ьте)\s*,?\s*что\s+(?:ты|вы)\s+(?:—\s*)?(?:ИИ|бот|ассистент|модель)",
    no_limits=r"\b(?:отвечай\w*|ответь\w*|действуй\w*|действуешь|действуете|отвечаешь|говори\w*"
              r"|пиши)\b[\s,]*" + _LATIN_F +
              r"без\s+(?:каких-либо\s+|всяких\s+|любых\s+|никаких\s+)?(?:ограничений|фильтров"
              r"|цензуры|правил|запретов)"
              r"|\bу\s+(?:тебя|вас)\s+(?:больше\s+|теперь\s+)?нет\s+(?:никаких\s+)?(?:ограничений"
              r"|правил|фильтров|запретов|цензуры)"
              r"|(?:\bИИ|\bассистент\w*|\bпомощник\w*|\bбот\w*|\bмодель\w*)\s+(?:[\w'’-]+\s+){0,2}"
              r"без\s+(?:каких-либо\s+|всяких\s+|любых\s+)?(?:ограничени\w+|фильтр\w+|цензур\w+"
              r"|правил\w*)",
    hide=r"\bне\s+(?:говори|говорите|сообщай|сообщайте|рассказывай|рассказывайте|показывай"
         r"|показывайте|упоминай|упоминайте|раскрывай|раскрывайте|сообщи)\b[\s,]*"
         r"(?:[\w'’-]+[\s,]+){0,6}?пользовател\w*"
         r"|\bскрой(?:те)?\s+(?:[\w'’-]+\s+){0,4}?от\s+пользовател\w*"
         r"|\b(?:втайне|тайком|незаметно|тайно)\s+от\s+пользовател\w*"
         r"|\bбез\s+ведома\s+пользовател\w*",
    obey=r"\bподчиняй(?:ся|тесь)\b|\bслушайся\b|\bслушай\s+только\b"
         r"|\bвыполняй(?:те)?\s+только\b|\bподчиняешься\s+только\b",
    void=r"\b(?:прежн|предыдущ|стар|исходн)\w*\s+(?:правил|инструкци|указани|директив)\w*\s+"
         r"(?:больше\s+не\s+(?:действуют|действительны|применяются|имеют\s+силы)|отменен\w*"
         r"|недействительн\w*|аннулирован\w*)"
         r"|(?:\bты|\bвы)\s+больше\s+не\s+(?:обязан\w*|должен|должны)\s+(?:соблюдать|следовать"
         r"|выполнять|подчиняться)",
    permission=r"(?:\bты\s+можешь|\bвы\s+можете|\bтебе\s+можно|\bвам\s+можно|\bтебе\s+разрешено)\s+"
               r"(?:[\w'’-]+\s+){0,2}?(?:делиться|поделиться|раскрывать|раскрыть|показывать"
               r"|показать|отправлять|отправить|передавать|выдавать)\s+(?:[\w'’-]+\s+){0,2}?"
               r"(?:конфигураци\w+|настройк\w+|промпт\w*|инструкци\w+|памят\w+|секрет\w*|парол\w+"
               r"|ключ\w*|токен\w*)",
    deny=r"\b(?:скажи|скажите|ответь|отвечай|утверждай)\s*,?\s+(?:[\w'’-]+\s+){0,2}?(?:что\s+)?"
         r"(?:её\s+|ее\s+|его\s+|их\s+)?не\s+существует|\bотрицай\s+(?:\w+\s+)?существовани\w+",
    authority=r"\b(?:системн\w+|административн\w+)\s+(?:уведомлени\w+|сообщени\w+|оповещени\w+)"
              r"\s*:|\bсообщени\w+\s+от\s+(?:разработчик|администратор)\w*\s*:",
    priority=r"\b(?:важнее|приоритетнее|главнее)\s+(?:[\w'’-]+\s+){0,2}?(?:инструкци\w+|правил\w*"
             r"|указани\w+|промпт\w*)|\bимеет\s+приоритет\s+над\s+(?:[\w'’-]+\s+){0,2}?"
             r"(?:инструкци\w+|правил\w*)",
    mode=r"\bрежим\w*\s+без\s+(?:каких-либо\s+)?(?:ограничений|фильтров|цензуры)"
         r"|\b(?:неограниченн|безлимитн|нецензурн)\w+\s+режим\w*",
    hidden_goal=r"\b(?:тво[яйё]|ваш[аи]?)\s+(?:настоящ|истинн|тайн|скрыт)\w+\s+(?:цель|задача"
                r"|миссия|роль|назначение)",
    self_erase=r"\b(?:удали|сотри|уничтожь)\w*\s+(?:[\w'’-]+\s+){0,4}?(?:все\s+|любые\s+)?(?:следы"
               r"|упоминани\w+)\s+(?:об\s+)?(?:этой|этих|этом)\s+(?:инструкци|заметк|запис|правил)\w*",
    forget_all=r"\bзабудь\w*\s+(?:обо\s+)?вс[её]м?\s*,?\s*(?:что|чему)",
    override=r"\bнов\w+\s+системн\w+\s+(?:промпт\w*|инструкци\w+)"
             r"|\bрежим\s+(?:DAN|джейлбрейк\w*|jailbreak)",
    stems=(("ignore", ("игнорир|забуд|обращай|учитыва|пренебреги|отбрось|откажись|перестань"
                       "|прекрати",
                       "инструкци|указани|правил|директив|установк|ограничени|запрет|промпт"
                       "|настройк|фильтр")),
           ("mode", "режим"),
           ("hidden_goal", "цель|задача|миссия|роль|назначение"),
           ("self_erase", "след|упоминани"),
           ("void", "действуют|действительн|применяются|силы|отмен|аннулир|обязан|долж"),
           ("permission", "дели|подели|раскры|показ|отправ|переда|выдава"),
           ("deny", "существ"),
           ("authority", "уведомлени|сообщени|оповещени"),
           ("priority", "важнее|приоритет|главнее"),
           ("obey", "подчиня|слушай|выполняй"),
           ("reveal", ("покажи|раскрой|выведи|повтори|напиши|сообщи|процитируй|распечатай|выдай"
                       "|озвучь|перечисли|скажи|скопируй|вставь|перепиши|приведи",
                       "системн|исходн|изначальн|скрыт|секретн|начальн|внутренн|system")),
           ("exfil", "переписк|истори|парол|ключ|токен|секрет|учётн|учетн|данн|памят|env"
                     "|контекст|переменн|cookie|куки|сообщени"),
           ("leak", ("вставь|включи|добавь|выведи|напиши|покажи|приложи|вставляй|включай"
                     "|добавляй|выводи|пиши|показывай|прикладывай|ответь",
                     "ключ|парол|учётн|учетн|токен|env|содержимое")),
           ("role", "теперь|отныне|момента|минуты|дня|больше"),
           ("pretend", "притвор|прикинь|сыграй|веди|представ"),
           ("no_limits", "без|нет"),
           ("hide", "пользовател"),
           ("forget_all", "забуд"),
           ("override", "системн|режим")),
    script="cyrillic",
)

_ZH_PROMPT = r"系统提示词?|系统指令|系统消息|系统设定|初始提示词?|初始指令|隐藏指令|原始指令|内部指令|system\s*prompt"

ZH = Lexicon(
    "zh", "Chinese",
    ignore_verbs=r"忽略|无视|忽视|忘记|忘掉|不要理会|不要遵守|不再遵守|别管|抛开|抛弃|放弃|绕过|违背"
                 r"|停止遵守|停止遵循|别再遵守|不要再遵守",
    qualifiers=r"之前|以前|先前|上面|上述|以上|前面|所有|全部|一切|你的|原来|原有|原始|初始|系统|现有|安全",
    instruction_nouns=r"指令|指示|说明|规则|提示词?|要求|设定|命令|约束|限制|规定|准则|过滤",
    reveal_verbs=r"显示|泄露|泄漏|输出|告诉我|打印|透露|展示|重复|复述|给我看|说出|公开|列出|发给我|复制|粘贴",
    prompt_terms=_ZH_PROMPT,
    exfil_verbs=r"发送|发到|上传|传到|传送|提交|转发|泄露|外发|同步到|贴到",
    sensitive=r"对话|聊天记录|历史记录|密码|密钥|令牌|token|凭证|凭据|用户数据|个人数据|个人信息|记忆"
              r"|\.env|上下文|环境变量|cookie",
    leak_verbs=r"粘贴|贴出|附上|加上|写出|输出|打印|显示|列出|包含",
    secrets=r"API\s*密钥|API\s*key|密码|凭证|凭据|令牌|私钥|SSH\s*密钥|会话\s*cookie|\.env",
    negations=r"不|别|勿|禁止|避免|切勿",
    reply_words=r"回复|回答|回应|摘要|总结|消息|对话|输出|聊天",
    role=r"(?:从现在(?:起|开始)|从这一刻起|从此刻起|从今(?:以后|天起)|今后|此后|现在起|接下来)[,，]?\s*"
         r"(?:你|您)(?:就|将|要)?(?:是|扮演|成为|作为)"
         r"|(?:你|您)现在(?:就)?(?:是|扮演|成为)|(?:你|您)不再是",
    pretend=r"假装|装作(?:你是|是|成)|假设你是|(?:你|您|请)(?:要)?扮演|角色扮演",
    no_limits=r"(?:你|您)(?:现在|已经)?(?:没有|不受|不再受)(?:任何)?(?:限制|约束|过滤|审查|规则)"
              r"|(?:不受|没有|无)(?:任何)?(?:限制|约束|审查|过滤)地?(?:回答|回复|回应|作答|输出)"
              r"|(?:回答|回复)(?:时)?(?:不要|无需|不必|不用)(?:有)?(?:任何)?(?:限制|过滤|审查)"
              r"|(?:没有|不受|无)(?:任何)?(?:安全)?(?:限制|过滤|审查|约束)的(?:助手|AI|人工智能|模型|机器人)",
    hide=r"(?:不要|别|切勿|不能|不准|不得|不可)(?:告诉|通知|提醒|让|向|跟|和)(?:给)?用户"
         r"|对用户(?:保密|隐瞒)|瞒着用户|(?:不让|别让|不要让)用户(?:知道|发现|察觉)"
         r"|在用户(?:不知情|不知道)的情况下",
    obey=r"只(?:服从|听从|遵守|遵循|执行|听)(?:这|以下|下面|我|本)|(?:服从|听从)(?:这条|以下|下面|我的)",
    void=r"(?:之前|以前|先前|原来|原有)的?(?:规则|指令|指示|设定|要求)(?:全部|都|已经?)?(?:不再|已经?)?"
         r"(?:有效|适用|作废|失效|无效)"
         r"|(?:你|您)(?:不再需要|不必再?|不用再?|无需再?)(?:遵守|遵循|服从)",
    permission=r"(?:你|您)(?:现在)?(?:可以|能够|被允许|有权)[^。！？\n]{0,10}?(?:分享|透露|公开|发送|展示|告诉)"
               r"[^。！？\n]{0,10}?(?:配置|系统提示|指令|记忆|密钥|密码|凭证|令牌)"
               r"|(?:你|您)(?:现在)?(?:可以|能够|被允许|有权)把[^。！？\n]{0,10}?(?:配置|系统提示|指令|记忆"
               r"|密钥|密码|凭证|令牌)[^。！？\n]{0,6}?(?:分享|透露|公开|发|展示|告诉)",
    deny=r"说(?:它|这条|这个|该)?[^。！？\n]{0,6}?(?:不存在|从未存在)|否认(?:它|这条|这个)?(?:的)?存在",
    authority=r"系统(?:通知|消息|公告)\s*:|(?:管理员|开发者|开发人员)(?:通知|消息)\s*:",
    priority=r"比(?:你的)?系统(?:指令|提示词?|规则)更(?:优先|重要)|优先于(?:你的)?(?:系统)?(?:指令|提示词?|规则)"
             r"|(?:覆盖|取代)(?:你的)?(?:系统)?(?:指令|提示词?)",
    mode=r"(?:无限制|无约束|无审查|无过滤|不受限制的?|越狱)模式",
    hidden_goal=r"(?:你|您)(?:真正|秘密|隐藏)的?(?:目的|目标|任务|使命|角色)(?:是|就是)",
    self_erase=r"(?:删除|抹去|清除|抹掉)[^。！？\n]{0,10}?(?:这条|此|这些)(?:指令|笔记|记录|规则|消息)的?(?:所有|一切)?痕迹",
    forget_all=r"忘(?:记|掉)(?:之前|以前|先前)?(?:的)?一切",
    override=r"新的?系统(?:提示词?|指令)|(?:DAN|越狱)模式|把(?:你的)?(?:" + _ZH_PROMPT +
             r")[^。！？\n]{0,12}?(?:复制|输出|发|写|贴|告诉|展示|显示|打印|重复)",
    stems=(("ignore", "忽略|无视|忽视|忘记|忘掉|理会|遵守|别管|抛开|抛弃|放弃|绕过|违背|遵循"),
           ("mode", "模式"),
           ("hidden_goal", "目的|目标|任务|使命|角色"),
           ("self_erase", "痕迹"),
           ("void", "有效|适用|作废|失效|无效|遵守|遵循|服从"),
           ("permission", "分享|透露|公开|发|展示|告诉"),
           ("deny", "存在"),
           ("authority", "通知|消息|公告"),
           ("priority", "优先|重要|覆盖|取代"),
           ("obey", "服从|听从|遵守|遵循|执行|只听"),
           ("reveal", "系统|初始|隐藏|原始|内部|system"),
           ("exfil", "对话|聊天记录|历史记录|密码|密钥|令牌|token|凭证|凭据|用户数据|个人数据|个人信息|记忆"
                     "|env|上下文|环境变量|cookie"),
           ("leak", "密钥|api|密码|凭证|凭据|令牌|私钥|cookie|env"),
           ("role", "现在|此刻|这一刻|从今|今后|此后|接下来|不再"),
           ("pretend", "假装|装作|假设|扮演"),
           ("no_limits", "限制|约束|过滤|审查|规则"),
           ("hide", "用户"),
           ("forget_all", "忘"),
           ("override", "系统|模式|初始|隐藏|原始|内部|system")),
    cjk=True,
    script="cjk",
)

LEXICONS: tuple[Lexicon, ...] = (EN, FR, ES, IT, RU, ZH)
