from handofflab.commands.cli import main

main()
