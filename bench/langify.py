#!/usr/bin/env python3
"""A generated vault's notes rewritten as non-English text, in one commit: a large accented, mixed Japanese, Russian,
Greek, Korean, Arabic, Hebrew, Hindi or Thai vault that anyone can rebuild (recall's speed on text that is not ASCII; docs/RECALL.md, Speed).

    python bench/genvault.py OUT --preset large && python bench/langify.py OUT --text accented
    python bench/langify.py VAULT --text cjk
    python bench/langify.py VAULT --text cyrillic --seed 12

- accented: in each line of the notes, the first word of 5+ ASCII letters holding an "e" gets "é" for its first
  "e" (most lines become non-ASCII, as French text is), and the vault's `languages:` becomes [french, english].
- cjk: each line of the notes gets " 東京で会議" at its end (mixed Japanese and English notes: every line non-ASCII).
- cyrillic, greek, korean, arabic, hebrew, devanagari, thai: each line of the notes gets one of eight short phrases
  of that script at its end, picked at random from `--seed` and the file's path (mixed Russian, Greek, Korean,
  Arabic, Hebrew, Hindi or Thai and English notes); `languages:` becomes [russian, english], [greek, english],
  [arabic, english] or [hindi, english] (Korean and Thai have no stemmer: their text is read as CJK bigrams; Hebrew
  has none either).

The notes are every committed .md file (the policy files AGENTS.md, SOUL.md and RULES.md aside) and each items.json's
"fact" lines; a Markdown file's front matter (its leading "---" block: name, kind, dates) is left as it is, so a
summary keeps its date. accented and cjk are fixed (no randomness), the others seeded, so the same vault and seed
give the same commit's tree. The commit is made by git with no hooks (memgit's rules would judge 21k changed files
one by one), as the vault's own author. The last line printed is a JSON summary (files changed, lines not ASCII,
seconds).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

POLICY = ("AGENTS.md", "SOUL.md", "RULES.md")
PHRASE = " 東京で会議"  # "a meeting in Tokyo"
_WORD = re.compile(r"\b([A-Za-z]*?)e([A-Za-z]*)\b")
# short everyday phrases: capitals and small letters, accents, final sigma, words of one to four syllables
PHRASES = {
    "cyrillic": (
        "Встреча в Москве",
        "новый отчёт готов",
        "Звонок с командой",
        "обсудили бюджет проекта",
        "Жду ответа от Юлии",
        "всё идёт по плану",
        "Срочно: проверить счёт",
        "ещё одна задача",
    ),
    "greek": (
        "Συνάντηση στην Αθήνα",
        "νέος προϋπολογισμός",
        "Τηλεφώνημα με την ομάδα",
        "η αναφορά είναι έτοιμη",
        "Περιμένω απάντηση από τον Γιώργο",
        "όλα πάνε καλά",
        "Επείγον: έλεγχος λογαριασμού",
        "άλλη μία εργασία",
    ),
    "korean": (
        "서울에서 회의",
        "새 보고서 준비됨",
        "팀과 통화",
        "프로젝트 예산 논의",
        "민수 씨의 답장을 기다림",
        "모두 계획대로 진행 중",
        "긴급: 계정 확인",
        "또 다른 일",
    ),
    "arabic": (
        "اجتماع في القاهرة",
        "التقرير الجديد جاهز",
        "مكالمة مع الفريق",
        "ناقشنا ميزانية المشروع",
        "أنتظر رداً من أحمد",
        "كل شيء يسير حسب الخطة",
        "عاجل: مراجعة الحساب",
        "مهمة أخرى",
    ),
    "hebrew": (
        "פגישה בתל אביב",
        "הדוח החדש מוכן",
        "שיחה עם הצוות",
        "דנו בתקציב הפרויקט",
        "מחכה לתשובה מיוסי",
        "הכול מתקדם לפי התוכנית",
        "דחוף: לבדוק את החשבון",
        "עוד משימה אחת",
    ),
    "devanagari": (
        "दिल्ली में बैठक",
        "नई रिपोर्ट तैयार है",
        "टीम के साथ कॉल",
        "परियोजना के बजट पर चर्चा",
        "राहुल के जवाब का इंतज़ार",
        "सब कुछ योजना के अनुसार",
        "ज़रूरी: खाते की जाँच",
        "एक और काम",
    ),
    "thai": (
        "ประชุมที่กรุงเทพ",
        "รายงานใหม่พร้อมแล้ว",
        "โทรคุยกับทีม",
        "หารือเรื่องงบประมาณโครงการ",
        "รอคำตอบจากสมชาย",
        "ทุกอย่างเป็นไปตามแผน",
        "ด่วน: ตรวจสอบบัญชี",
        "งานอีกหนึ่งอย่าง",
    ),
}
LANGUAGES = {"accented": "french", "cyrillic": "russian", "greek": "greek", "arabic": "arabic", "devanagari": "hindi"}


def accented(line: str) -> str:
    """The line with the first word of 5+ letters holding an "e" given "é" for its first one."""
    for m in _WORD.finditer(line):
        if len(m.group()) >= 5:
            return line[: m.start()] + m.group(1) + "é" + m.group(2) + line[m.end() :]
    return line


def cjk(line: str) -> str:
    """The line with a short Japanese phrase at its end (an items.json fact's inside its quotes)."""
    if line.lstrip().startswith('"fact":'):
        return line[:-2] + PHRASE + '",' if line.endswith('",') else line
    return line + PHRASE if line.strip() else line


def phrased(line: str, phrase: str) -> str:
    """The line with a phrase at its end (an items.json fact's inside its quotes)."""
    if line.lstrip().startswith('"fact":'):
        return line[:-2] + " " + phrase + '",' if line.endswith('",') else line
    return line + " " + phrase if line.strip() else line


def _front(lines: list[str]) -> int:
    """How many lines a Markdown file's front matter takes (its leading "---" block), 0 for none."""
    if not lines or lines[0] != "---":
        return 0
    return next((n + 2 for n, x in enumerate(lines[1:]) if x == "---"), 0)


def rewrite(text: str, path: str, how: str, seed: int = 0) -> str:
    lines = text.split("\n")
    if how in PHRASES:
        pick, phrases = random.Random(f"{seed}:{path}").choice, PHRASES[how]

        def one(line: str) -> str:
            return phrased(line, pick(phrases))

    else:
        one = accented if how == "accented" else cjk
    if path.endswith("items.json"):
        return "\n".join(one(x) if x.lstrip().startswith('"fact":') else x for x in lines)
    head = _front(lines)
    return "\n".join(lines[:head] + list(map(one, lines[head:])))


def git(vault: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(vault), *args], capture_output=True, text=True, check=True).stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("vault", type=Path, help="a vault (bench/genvault.py's), rewritten and committed in place")
    ap.add_argument("--text", choices=("accented", "cjk", *PHRASES), required=True)
    ap.add_argument("--seed", type=int, default=12, help="which phrase each line gets (cyrillic, greek, korean...)")
    args = ap.parse_args(argv)
    vault: Path = args.vault
    if git(vault, "status", "--porcelain", "--untracked-files=no").strip():
        print(f"{vault}: uncommitted changes; commit or discard them first", file=sys.stderr)
        return 2
    start = time.monotonic()
    changed: list[str] = []
    odd = 0
    for path in git(vault, "ls-files", "-z").split("\0"):
        if not path or path.startswith(".") or path in POLICY or not path.endswith((".md", "items.json")):
            continue
        file = vault / path
        text = file.read_text(encoding="utf-8")
        new = rewrite(text, path, args.text, args.seed)
        odd += sum(not x.isascii() for x in new.split("\n"))
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(path)
    if args.text in LANGUAGES:
        config = vault / ".memgit.yaml"
        old = config.read_text(encoding="utf-8")
        language = LANGUAGES[args.text]
        config.write_text(old.replace("languages: [english]", f"languages: [{language}, english]"), encoding="utf-8")
        if config.read_text(encoding="utf-8") != old:
            changed.append(".memgit.yaml")
    for at in range(0, len(changed), 2000):
        git(vault, "add", "--", *changed[at : at + 2000])
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", f"bench: {args.text} notes")
    seconds = round(time.monotonic() - start, 1)
    print(json.dumps({"text": args.text, "files_changed": len(changed), "lines_not_ascii": odd, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
