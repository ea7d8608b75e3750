from ssdlab.cli.main import main

raise SystemExit(main())
