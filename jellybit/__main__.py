import sys

from jellybit.cli import main

sys.exit(main())
