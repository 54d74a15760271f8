#!/bin/sh
# memgit's main job on a fresh demo vault: init, writes, a supersede, cite, recall, archive.
set -eu
dir=${1:-/tmp/memgit-demo}
# start over only in a folder this script made (its mark is in .git); never delete anything else
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
  if [ -f "$dir/.git/memgit-demo" ]; then
    rm -rf "$dir"
  else
    echo "demo.sh: $dir is not empty and was not made by demo.sh; give a new or empty folder" >&2
    exit 2
  fi
fi
export MEMGIT_AGENT="${MEMGIT_AGENT:-demo-agent@localhost}"
memgit init "$dir"
cd "$dir"
echo "made by memgit's demo.sh: rerunning it may delete this vault" > .git/memgit-demo
git config user.name "Demo Human"; git config user.email "human@example.com"
memgit log "Kickoff with Sarah about the Q3 launch" --at 2026-01-02T09:30
# an instruction carries the highest authority, so only a person records one (no MEMGIT_AGENT)
MEMGIT_AGENT= memgit log "Sarah: ship the beta on Friday, no later" --kind instruction --source "ship the beta on Friday, no later" --at 2026-01-02T09:45
old=$(memgit fact add people/sarah "Works at Acme Corp as product lead" --category relationship --source memory/2026-01-02.md:3 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
memgit decide "Use Postgres for the event store" --context "We need durable, queryable events" --decision "Postgres 16 with logical replication" --alternative "SQLite" --tag storage
memgit supersede "$old" "Left Acme Corp; now head of product at Globex" --reason "she announced it in the kickoff"
echo "--- cite the retired fact"
memgit cite "$old"
echo "--- cite a journal line"
memgit cite memory/2026-01-02.md:3
echo "--- recall"
memgit recall "Sarah product" --k 3
echo "--- archive journals older than 14 days"
memgit archive --older-than 14d
memgit recall "kickoff" --archive --k 2
echo "--- verify the whole history"
memgit verify && echo "verify: ok"
git log --oneline
