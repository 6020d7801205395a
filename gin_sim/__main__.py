from gin_sim.interfaces.cli import main

main()
