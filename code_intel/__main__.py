from code_intel.cli import main

main()
