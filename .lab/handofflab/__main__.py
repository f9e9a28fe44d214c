from handofflab.cli import main

main()
