"""The options of the engines and environments, and the checks of every argument they share.

:class:`Options` (the reference engine's D12/D16 options) and ``DEFAULT_CHIPS`` live here beside
the checks (clear errors, one place).

Every check raises ``ValueError`` naming the argument, what it got and what is allowed, and
none of them converts: ``1.5`` chips, ``"500"`` chips or a seed of ``"7"`` are refused, not
rounded or parsed. Callers check everything first and only then change any state.

Chip ranges (one check, ``check_chips``, used by ``Hand``, ``Session``, the environments'
options and ``FastTables``/``vector_env``; the same in both engines). The fast engine keeps
chips in int32 fields (int64 ones cost it about 5% of its speed, docs/fast_engine.md), so
the ranges make a wrap impossible instead:

- chips enter an episode (``starting_chips``, a reset's ``chips``, ``load_deal``'s ``chips``,
  ``Session(chips=)``) as integers within +-``CHIP_LIMIT`` (5e8);
- without penalties a hand moves fewer than ``HAND_SWING`` (1e4) chips per seat (the most:
  27 wrong closings at 160, 6,194 in all) and an episode has at most
  ``MAX_HANDS_PER_EPISODE`` (1e4) hands, so no seat's chips ever leave +-``CHIP_GUARD`` (6e8);
- D16 penalties are not bounded per hand: in penalty mode both engines refuse any step
  (``OverflowError``, nothing changed) once a seat's chips lie beyond +-``CHIP_GUARD``;
- a ``Hand`` accepts chips within +-(``CHIP_GUARD`` + ``HAND_SWING``): every hand an episode
  can reach (a session carries its chips into each new hand).

So chips stay within +-6.0001e8 and every difference of them (rewards, payments by reason,
chips since the episode or hand began) within +-1.3e9, inside int32 (+-2.1e9).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

#: Chips every seat starts an episode (a session, a hand) with, unless told otherwise.
DEFAULT_CHIPS = 500

#: Chips may enter an episode within +-CHIP_LIMIT.
CHIP_LIMIT = 5 * 10**8
#: Hands per episode at most (the fast engine's hand and closing counters are int32 too).
MAX_HANDS_PER_EPISODE = 10**4
#: A hand moves fewer chips than this per seat, penalties aside.
HAND_SWING = 10**4
#: No episode gets beyond this without penalties; penalty-mode steps are refused beyond it.
CHIP_GUARD = CHIP_LIMIT + MAX_HANDS_PER_EPISODE * HAND_SWING
#: What a single Hand accepts: any hand an episode can reach.
HAND_CHIP_LIMIT = CHIP_GUARD + HAND_SWING


def is_integer(value: object) -> bool:
    """A Python or numpy integer, not a bool (bool is an int subclass, but never a count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_action_index(action: object, num_actions: int, agent: str) -> int:
    """An AEC environment's action as an int, or a ValueError naming the allowed range. An action
    is an index: 28.5, "28" and True are refused, never converted (numpy 0-d integer arrays pass)."""
    if not (is_integer(action) or (isinstance(action, np.ndarray) and action.shape == ()
                                   and np.issubdtype(action.dtype, np.integer))) \
            or not 0 <= int(action) < num_actions:
        raise ValueError(f"action must be an action index: an integer 0..{num_actions - 1} (int or numpy "
                         f"integer; None only for an agent that is done), got {action!r} "
                         f"({type(action).__name__}) for {agent}")
    return int(action)


def _shown(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_int(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """``value`` as a Python int, if it is an integer within low..high (either bound optional)."""
    bounds = ("" if low is None and high is None else
              f" >= {low}" if high is None else f" in {low}..{high}")
    if not is_integer(value):
        raise ValueError(f"{name} must be an integer{bounds}, got {_shown(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer{bounds}, got {value}")
    return value


def check_seat(name: str, value: object, num_players: int) -> int:
    if not is_integer(value) or not 0 <= int(value) < num_players:
        raise ValueError(f"{name} must be a seat 0..{num_players - 1} (an integer), got {_shown(value)}")
    return int(value)


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_shown(value)}")
    return bool(value)


def check_seed(seed: object) -> int | None:
    """None (fresh entropy) or any integer; the same check for every engine and API."""
    if seed is None:
        return None
    if not is_integer(seed):
        raise ValueError(f"seed must be an integer or None, got {_shown(seed)}")
    return int(seed)


def check_chip(name: str, value: object, limit: int = CHIP_LIMIT) -> int:
    if not is_integer(value) or not -limit <= int(value) <= limit:
        raise ValueError(f"{name} must be an integer within +-{limit:,} (nos_env/options.py), got {_shown(value)}")
    return int(value)


def check_chips(chips: object, num_players: int, name: str = "chips", limit: int = CHIP_LIMIT) -> list[int]:
    """One integer per seat, each within +-limit, as a list of Python ints."""
    if isinstance(chips, (str, bytes, dict)) or not hasattr(chips, "__len__") or not hasattr(chips, "__iter__"):
        raise ValueError(f"{name} must be a sequence of {num_players} integers (one per seat), got {_shown(chips)}")
    if isinstance(chips, np.ndarray) and chips.ndim != 1:
        raise ValueError(f"{name} must be a sequence of {num_players} integers (one per seat), "
                         f"got an array of shape {chips.shape}")
    values = list(chips)
    if len(values) != num_players:
        raise ValueError(f"{name} needs one number per seat ({num_players}), got {len(values)}")
    return [check_chip(f"{name}[{seat}]", c, limit) for seat, c in enumerate(values)]


def check_chips_in_guard(chips, what: str) -> None:
    """Penalty mode (D16): refuse a step once a seat's chips lie beyond +-CHIP_GUARD."""
    if max(chips) > CHIP_GUARD or min(chips) < -CHIP_GUARD:
        raise OverflowError(f"{what}: a seat's chips are beyond +-{CHIP_GUARD:,} ({list(chips)}), which no "
                            f"game reaches without penalties; no further step is taken, so chips never "
                            f"wrap (nos_env/options.py)")


#: D16: what an illegal action does (raise IllegalActionError, or charge the penalty and ask again).
ILLEGAL_ACTIONS = ("raise", "penalty")


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """One of the texts ``allowed`` (no other type is converted)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be {' or '.join(repr(a) for a in allowed)}, got {value!r}")
    return value


def check_scale(name: str, value: object) -> float:
    """A positive finite number, as a float (reward and chip scales; bools are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Options:
    """Engine options.

    auto_forced (D12): apply decisions that have exactly one legal action
        (forced draws, forced passes, the set after a drawn set tile, ...)
        automatically. The results are the same either way.
    illegal (D16): ``"raise"`` (default) raises :class:`IllegalActionError`
        and leaves the hand unchanged; ``"penalty"`` charges the actor 40 to
        every other player and asks him again.
    """

    auto_forced: bool = False
    illegal: str = "raise"

    def __post_init__(self):
        check_bool("Options.auto_forced", self.auto_forced)
        check_choice("Options.illegal", self.illegal, ILLEGAL_ACTIONS)


@dataclass(frozen=True)
class TableOptions:
    """The options of a table of Nos, checked once: what ``FastTables``, ``vector_env()`` and the
    AEC environment (``nos_env.env()``, both backends) share.

    The three constructors keep their keyword arguments (and take their defaults from here); each
    builds a ``TableOptions`` from them, so the checks, their messages and the normalised values
    are written once. Construction checks every field (``ValueError`` naming the option, what it
    got and what is allowed) and stores plain Python values; ``first_hand_rule=None`` becomes
    ``hands_per_episode > 1`` (sessions start with the first-hand rule, single hands do not).
    """

    hands_per_episode: int = 1
    first_hand_rule: bool | None = None
    starting_chips: int = DEFAULT_CHIPS
    illegal_action: str = "raise"  # D16: ILLEGAL_ACTIONS
    auto_forced: bool = False  # D12
    chip_scale: float = 100.0  # observations show chips divided by this

    def __post_init__(self):
        # Checked in this order, so the first bad option is the one named; frozen, hence __setattr__.
        put = object.__setattr__
        put(self, "hands_per_episode", check_int("hands_per_episode", self.hands_per_episode, 1,
                                                 MAX_HANDS_PER_EPISODE))
        put(self, "illegal_action", check_choice("illegal_action", self.illegal_action, ILLEGAL_ACTIONS))
        put(self, "starting_chips", check_chip("starting_chips", self.starting_chips))
        put(self, "chip_scale", check_scale("chip_scale", self.chip_scale))
        put(self, "first_hand_rule", self.hands_per_episode > 1 if self.first_hand_rule is None
            else check_bool("first_hand_rule", self.first_hand_rule))
        put(self, "auto_forced", check_bool("auto_forced", self.auto_forced))

    @property
    def penalty(self) -> bool:
        """Illegal actions are charged (D16 penalty mode), not raised."""
        return self.illegal_action == "penalty"

    @property
    def engine_options(self) -> Options:
        """The reference engine's options for these tables."""
        return Options(auto_forced=self.auto_forced, illegal=self.illegal_action)

    def as_kwargs(self) -> dict:
        """The options as keyword arguments (of ``FastTables``, ``vector_env()``, ``nos_env.env()``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
