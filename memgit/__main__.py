from __future__ import annotations

from memgit.main import main

raise SystemExit(main())
