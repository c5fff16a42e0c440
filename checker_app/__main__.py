from checker_app.cli import main

main()
