"""OpenSkill ratings for rated games: partnerships are teams, ranked by their final totals."""

from __future__ import annotations

from dataclasses import replace

from openskill.models import PlackettLuce

from spades.storage.base import GameSeat, PlayerRow

MODEL = PlackettLuce()


def display_rating(mu: float | None, sigma: float | None) -> float:
    """The conservative rating shown on the leaderboard: mu - 3 sigma (0 for the unrated)."""
    if mu is None or sigma is None:
        return 0.0
    return mu - 3 * sigma


def rate_game(seats: list[GameSeat], players: dict[str, PlayerRow], totals: list[int]) -> list[GameSeat]:
    """New ratings for every human seat: one team per side, the side's total as its score."""
    sides = sorted({g.side for g in seats})
    teams = []
    for side in sides:
        team = []
        for g in seats:
            if g.side == side:
                p = players.get(g.player_id)
                mu = p.rating_mu if p and p.rating_mu is not None else None
                sigma = p.rating_sigma if p and p.rating_sigma is not None else None
                team.append(MODEL.rating(mu=mu, sigma=sigma))
        teams.append(team)
    new = MODEL.rate(teams, scores=[totals[s] for s in sides])
    out: list[GameSeat] = []
    for g in seats:
        k = sides.index(g.side)
        members = [x for x in seats if x.side == g.side]
        r_new = new[k][members.index(g)]
        r_old = teams[k][members.index(g)]
        out.append(replace(g, mu=r_new.mu, sigma=r_new.sigma, rating_before=display_rating(r_old.mu, r_old.sigma),
                           rating_after=display_rating(r_new.mu, r_new.sigma)))
    return out
