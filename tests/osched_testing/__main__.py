"""python3 -m osched_testing FAMILY LAYERS OUT.json (graphs.main)."""
import sys

from .graphs import main

main(sys.argv)
