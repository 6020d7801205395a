from gin_sim.cli import main

main()
