"""Simulated rounds per second of the Minodice bid advisor (`advise_bid`), by player count and round.

Run: python benchmarks/bench_minodice.py [SIMULATIONS]
"""

import sys
import time

from diavolo_stats.minodice import advise_bid, load_dice


def main(simulations: int = 200_000) -> None:
    bag = load_dice()
    hands = {1: "black", 3: "black,mermaid,yellow", 6: "black,mermaid,yellow,red,blue,griffin",
             8: "black,mermaid,yellow,red,blue,griffin,minotaur,black"}
    print(f"{'players':>7}  {'round':>5}  {'rounds/s':>10}")
    for players, round_number in ((3, 1), (4, 3), (4, 8), (6, 6)):
        start = time.perf_counter()
        advise_bid(hands[round_number], round_number, players, bag=bag, simulations=simulations, seed=0)
        seconds = time.perf_counter() - start
        print(f"{players:>7}  {round_number:>5}  {simulations / seconds:>10,.0f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
