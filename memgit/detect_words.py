"""Credentials by the words around them (memgit/detect.py): the keyword, prose and password patterns, the words each
is looked for at, and the words that make a match a setting or another clause. Patterns and tables only:
memgit/detect_prose.py matches and judges them."""

from __future__ import annotations

from memgit.detect_formats import _URL_PASSWORD, _lazy

# [ds] keyword.py DENYLIST, [gl] generic-api-key keywords. Each pattern is matched where str.find found one of
# its literals (a regex scan of every position took 2.4 s on a 5 MB append); _keyword_start() judges the word
# the literal sits in (`DB_PASSWORD`, `dbPassword`, `api_key` count, `monkey` does not).
_TAIL = r"(?:[_.-][A-Za-z0-9]+){0,2}[\"'\]]{0,2}"
_PASSWORD = (
    r"pass(?:word|wd|phrase|wort|e)|pwd?|kennwort|wachtwoord|contrase[ñn]a|senha|parola(?:s[ıi]|m)?|has[łl]o|"
    r"[şs]ifre(?:si|m|miz|niz)?|парол\w*|密码|密碼|口令|パスワード|비밀번호|암호|كلمة (?:المرور|السر)|סיסמ[הא]|पासवर्ड"
)
_SEPARATOR = r"(?P<sep>[ \t]*(?::=|=>|==?|:|：)|[ \t]+(?i:is|was|are)[ \t]*:?)"
_VALUE = r"[ \t]*(?P<q>[\"'`]?)(?P<val>[^\s\"'`]+)"
ASSIGNMENT = _lazy(rf"(?i:{_PASSWORD}|secret|token|key|credentials?){_TAIL}{_SEPARATOR}{_VALUE}")
# "is" between the word password and its value as notes in those languages write it ("Passwort ist x", "lautet",
# "le mot de passe est x", "la contraseña es x", "a senha é x", "hasło to x", "пароль — x", "паролата е x",
# "密码是x", "パスワードはx", "비밀번호는 x", "كلمة المرور هي x", "הסיסמה היא x", "पासवर्ड है x", "password - x"), after
# a password word only (`token — x`, `key - x` are prose). Apart from ASSIGNMENT: compiled only for a line that
# holds one (the two in one pattern cost 4.8 M instructions more to compile, callgrind, for every line with `key:`)
_COPULA_WORDS = r"ist|war|lautet|hei(?:ß|ss)t|luidt|est|était|es|era|é|è|to|jest|это|е|є|هي|היא|है"
_COPULA = (
    rf"(?P<sep>[ \t]+(?i:{_COPULA_WORDS})(?=[ \t:：]|$)"
    r"[ \t]*[:：]?|[ \t]*[—–][ \t]*|[ \t]+-[ \t]+|[ \t]*(?:是|为|為|は|는|은|가|が)[ \t]*[:：]?)"
)
PROSE = _lazy(rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}{_COPULA}{_VALUE}")
# words between the password word and its "is" or colon, in one clause: "the password for the db is x", "das
# Passwort für den Server ist x", "пароль от сервера: x", "הסיסמה של השרת היא x", and an aside between two commas
# ("the password, as agreed, is x"). A gap word holds no clause punctuation and is no "is" of its own (the first "is"
# after the word is the one judged); _order_judged() bounds the gap to 64 characters and skips a gap naming a
# setting ("the password manager is 1Password") or starting another clause ("which", "and")
_GAP_WORD = rf"[ \t]+(?!(?i:is|was|are|{_COPULA_WORDS})(?:[ \t:]|：|$))[^\s:=,;!?\"'`]*[^\s:=,;!?.\"'`]"
_ASIDE = r"[ \t]*,[^,;:=\n\"'`]{1,40},"
GAP = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}(?P<gap>{_ASIDE}(?:{_GAP_WORD}){{0,8}}?|(?:{_GAP_WORD}){{1,8}}?)"
    rf"(?:(?P<sep>[ \t]*(?::=|=>|==?|:|：)|[ \t]+(?i:is|was|are)(?=[ \t:：])[ \t]*:?)|{_COPULA.replace('(?P<sep>', '(?P<cop>', 1)})"
    + _VALUE
)
# the value before its verb, where the language puts the verb last: Hindi "पासवर्ड hunter2x है", Japanese and Korean
# "パスワード neko1234です", "비밀번호 gae12345입니다", a German or Dutch subordinate clause ("dass das Passwort
# Sommer2024! ist."); the value is the one word right after the password word, the verb ends the clause (or the
# quoted string: a fact in items.json)
FINAL = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}(?:[ \t]+|(?<=[^\x00-\x7f]))(?P<q>)(?P<val>[^\s\"'`’]+?)"
    r"(?P<sep>[ \t]+(?i:ist|war|is)(?=[.,;:!?)\"']|$)|(?:[ \t]*(?:है|था|थी)|です|だ|입니다|이다|이에요|예요)(?=[\s.,;:!?。、)\"']|$))"
)
# Turkish writes "is" as a suffix of the value or not at all: "şifre kedi1234'tür", "Wi-Fi şifresi kedi1234", the
# value ending the clause ("anahtar parolası %s tarihinden beri" is not one). Bare parola (Italian: word) and sifre
# without its ş (Norwegian: digits) only with the suffix: secrets_in() checks
BARE = _lazy(
    r"(?P<prose>(?i:[şs]ifre(?:si|m|miz|niz)?|parola(?:s[ıi]|m)?))[ \t]+(?P<q>)(?P<val>[^\s\"'`’]+?)(?P<suffix>['’]\w+)?"
    r"(?=[.,;:!?)]*(?:$|\n|[\"'])|[.,;:!?)]+[ \t]|[ \t]+(?i:ve|ile|ama|and)[ \t])"
)
# the value straight after the password word, no verb between ("wifi password hunter2x", "db pw Sommer2024!",
# "new password hunter2x and the door code..."), the value ending the clause (or an "and" following it): "password
# hunter2x for guests" is still let in, "password reset flow" and "password OAuth2 login" pass
ALONE = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD}))(?P<alone>)[ \t]+(?P<q>)[\"'`‘“]?(?P<val>[^\s\"'`‘’“”]+?)[\"'`’”]?"
    r"(?=[.,;!?)]*(?:$|\n)|[.,;!?)]+[ \t]|[ \t]+(?i:and|or|und|oder|et|ou|y|e|i|и)[ \t])"
)
# the password set to a value: "the password was changed to x", "password set to x", "reset the db password to x",
# "das Passwort wurde auf x geändert", "le mot de passe a été changé en x", "сменил пароль на x": a verb of setting
# (SET_VERBS) ends the gap, follows the value, or stands a few words before the password word (_set_judged());
# "the password sent to user42" passes
_TO = r"(?P<to>(?i:to|auf|en|pour|a|para|in|op|naar|na|на))"
_TO_GAP = r"(?:[ \t]+[^\s:=,;!?\"'`]*[^\s:=,;!?.\"'`]){0,8}?"
# (the value as the prose rule wants one, a digit or symbol in it or quoted: "changed in prod to x" reads on to x)
TO = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD}))(?:(?<=[dD])s)?(?P<gap>{_TO_GAP})[ \t]+{_TO}[ \t]*:?"
    r"(?=[ \t]*(?:[\"'`]|[^\s\"'`]*[\d!@#$%^&*+=?~|\\]))" + _VALUE
)
# the start of a credential at the end of one text of a write, the rest in another (a fact and its --reason)
DANGLING = _lazy(
    rf"(?:(?i:{_PASSWORD}){_TAIL}(?:{_ASIDE})?(?:{_GAP_WORD}){{0,8}}?(?:{_SEPARATOR}|{_COPULA.replace('(?P<sep>', '(?:', 1)})|"
    rf"(?i:{_PASSWORD})s?(?:{_TO_GAP}[ \t]+{_TO})?|"
    r"(?i:[şs]ifre(?:si|m|miz|niz)?|parolas[ıi]|parolam)|"
    rf"(?i:secret|token|key|credentials?){_TAIL}{_SEPARATOR.replace('(?P<sep>', '(?:', 1)}|"
    rf"\b[A-Za-z][A-Za-z0-9+.-]{{1,20}}://[^\s:/?#@'\"<>]*:{_URL_PASSWORD}*)[ \t]*[\"'`「『“]?$"
)
# [gl] generic-api-key: a key-ish word in assignment context with a long high-entropy value
ENTROPY_CONTEXT = _lazy(
    r"(?i:pass(?:word|wd|phrase)|pwd|secret|token|key|credentials?|auth|client[_-]?id)"
    + _TAIL
    + r"[ \t]*(?::=|=>|==?|:|[ \t](?i:is)[ \t])[ \t]*[\"'`]?(?P<val>[A-Za-z0-9+/=_.-]{16,})"
)
# a suffix that makes the name a setting about the credential, not the credential: token_type, PASSWORD_FILE
METADATA = _lazy(
    r"(?i)[_.-](?:type|name|id|policy|length|len|count|url|uri|file|path|env|var|ttl|expiry|expires|expiration|age|"
    r"hint|label|field|format|kind|mode|strength|reset|rotation|manager|store|endpoint|header|prefix|usage|limit|source)\b"
)
# "password" as notes in other languages write it (`pass` finds German Passwort and French mot de passe): Dutch,
# German, Spanish, Portuguese, Italian and Turkish, Polish, Turkish, Russian/Ukrainian/Bulgarian, Chinese, Japanese,
# Korean, Arabic, Hebrew, Hindi; a word not in ASCII needs no word boundary before it (Chinese and Japanese have none)
PASSWORD_WORDS = (
    *("kennwort", "wachtwoord", "contrase", "senha", "parola", "haslo", "hasło", "şifre", "sifre", "парол"),
    *("密码", "密碼", "口令", "パスワード", "비밀번호", "암호", "كلمة", "סיסמ", "पासवर्ड"),
)
KEYWORDS = ("pass", "pw", "secret", "token", "key", "cred", *PASSWORD_WORDS)  # pw finds pwd
# a keyword is looked at only where one of these follows it closely (the commit-msg hook script relies on it)
KEYWORD_SEPARATORS = ("=", ":", " is", " was", " are", "：")
# and a password word where one of _COPULA's follows it (the commit-msg script's " is" finds ist)
PASSWORD_KEYWORDS = ("pass", "pw", *PASSWORD_WORDS)
PASSWORD_SEPARATORS = (
    *(" war", " lautet", " heisst", " luidt", " est", " es", " era", " to", " jest", " - "),
    *(
        "heißt",
        " était",
        " é",
        " è",
        "—",
        "–",
        " это",
        " е",
        " є",
        "是",
        "为",
        "為",
        "は",
        "는",
        "은",
        "가",
        "が",
        " هي",
        " היא",
        " है",
    ),
)
# what PROSE is tried at: a copula word as a whole word (" to " and " to:", not " token"), the others as they are
_COPULAS = tuple(
    form
    for sep in (" ist", *PASSWORD_SEPARATORS)
    for form in ((sep + " ", sep + ":", sep + "：") if sep[0] == " " and sep[-1].isalpha() else (sep,))
)
# where FINAL is tried: what ends a value before its verb (" is" finds ist)
FINAL_MARKS = (" is", " war", "है", "था", "थी", "です", "だ", "입니다", "이다", "이에요", "예요")
# the words BARE starts from (the commit-msg script sends a message holding one and a space after it to memgit)
BARE_KEYWORDS = ("şifre", "sifre", "parola")
# the password words in ASCII as ALONE and TO start from (a blank right after one, or after its plural, sends a
# commit message to memgit): what _PASSWORD matches but parola and sifre (BARE's)
ALONE_KEYWORDS = (
    *("password", "passwd", "passphrase", "passwort", "passe", "pwd", "pw"),
    *("kennwort", "wachtwoord", "contrasena", "senha", "haslo"),
)
# a verb of setting, as the start of a word: what makes "password ... to x" a password set to x
SET_VERBS = (
    *("chang", "set", "reset", "updat", "rotat", "modifi", "switch"),  # English
    *("geänder", "geaender", "gesetzt", "zurückgesetzt", "änder", "aender", "setz"),  # German
    *("réinitialis", "reinitialis", "cambi", "alter", "mud", "modific"),  # French, Spanish, Italian, Portuguese
    *("измен", "смен", "поменя", "установ", "сброс", "zmien", "zmień", "ustaw"),  # Russian, Polish
    *("gewijzig", "veranderd", "wijzig", "ingesteld"),  # Dutch
)
SET_VERBS_A_IN = ("cambi", "modific", "gewijzig", "veranderd", "wijzig")  # "cambió a x", "cambiata in x"
# the words of a gap that make it a setting of the password, not the password ("the password manager is 1Password"),
# and the words that start another clause ("without a password unless the root account is locked"): looked up as
# " word " (a regex of them costs 7 M instructions to compile, callgrind)
GAP_SETTINGS = (
    " policy policies manager managers length hint hints reset resets rotation rule rules requirement requirements"
    " expiry expiration field fields file files hash hashes hashing salt strength change changes format prompt"
    " encryption algorithm minimum maximum min max complexity history lifetime age limit attempts "
)
GAP_CLAUSES = (
    " which that unless when if because but while where whether since until although though dass wenn weil aber"
    " oder que qui mais si quand pero cuando porque che ma quando se dat maar als что но если когда który która"
    " które ale gdy jeśli and or und et ou y o e и или "
)
ENTROPY_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "client")
# words that make a following `key`/`token` a credential's name: api_key, accessKey, authtoken...
QUALIFIERS = (
    "api",
    "access",
    "auth",
    "secret",
    "private",
    "client",
    "bearer",
    "refresh",
    "account",
    "master",
    "signing",
)
