from gpukb.cli import main

raise SystemExit(main())
