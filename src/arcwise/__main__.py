from arcwise.cli.main import main

main()
