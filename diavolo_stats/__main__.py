import sys

from diavolo_stats.cli import main

sys.exit(main())
