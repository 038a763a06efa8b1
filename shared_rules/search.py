"""The search bot (the "hard" level): information-set Monte Carlo tree search.

One tree for the seat that asks, over what it may know (single-observer IS-MCTS, after
Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012). Each
iteration:

1. Deals the hidden things again: the engine's `determinize(state, seat, rng)` returns a
   state in which everything the seat cannot know (other hands, decks, face-down cards, the
   dice to come) is dealt anew from `rng`, consistent with what the seat sees. The bot never
   searches the true state: it starts from a copy that the engine has re-dealt.
2. Walks down the tree in that deal. A node's children are actions; a child counts as
   available at each visit where its action is legal in the deal, and is chosen by UCB1
   over its availability count (what makes IS-MCTS fair when an action is legal in some
   deals only). At the root only the seat's own actions are tried; below it every legal
   action, each judged from the side of the seat that takes it, so the other seats play to
   win too (their hidden cards are part of the deal).
3. Adds one new child, plays on at random for the engine's `rollout` steps, and judges the
   end: for every seat, the change of its standing (shared_rules/bots.py `evaluate`, or the
   engine's `hard_evaluate` where it offers one: a yardstick that knows more of the game
   than the greedy bot's) from the root to the end, in the same deal. Measuring the
   change, not the standing, cancels the luck of the deal and keeps a seat that is far
   behind (or ahead) seeing a difference between its moves. The change is squashed to
   -1000..1000 by d / (|d| + scale).
   With two seats the game is zero-sum: the seat's own change is judged, the other's is its
   negative (an engine's yardstick may look further for the seat to move, so two seats'
   yardsticks need not agree). An engine whose yardstick counts its seat's own standing
   only (Fight Club's: what the seat holds, never what the other seat holds) asks for
   `relative`: then the change judged is the seat's own less the other seat's, so a move
   that helps the other seat more than it helps the seat is judged a loss.
4. Adds that reward to every node of the path, from the side of its mover.

The move is the root child with the most visits. Everything is integer arithmetic (the log
is a fixed-point table, the square root an integer one), so the same state and seed give
the same move on CPython and MicroPython. The randomness comes from the engine's PRNG
seeded with the bot's seed and a CRC-32 of the seat's own view, never of the hidden cards:
two states that differ only in what the seat cannot see give the same move (and a resumed
game's bot plays on as it would have).

An engine tunes the search with an optional `SEARCH` dict (or, for a game whose modes
search differently, a `search_settings(state)` that returns one):
  iterations: the budget, iterations per move (default ITERATIONS)
  scale: the size of a typical change of `evaluate` (default SCALE)
  rollout: random steps after the tree (default 0)
  explore: the UCB constant, in reward units (default EXPLORE)
  prior: n > 0 makes the greedy bot's move (worked out on one deal) start with n visits of
    a full reward: a nudge for games where the search alone is short of iterations
  relative: True judges a two-seat game by the seat's change less the other seat's (step 3)
  turn: True keeps the tree to the seat's own actions: a path ends where the seat's turn
    does, and is judged there (step 3), so every leaf is judged at the same point of the
    game, before the other seats' replies (a game whose turn is several actions of one
    seat: the search plans the turn, where the greedy bot looks one action ahead)
  plan: (candidates, deals, work): with two seats, no tree (`_plan`): the greedy bot's
    `candidates` best moves, each played on by the greedy bot to the end of the seat's turn
    in the same `deals` deals, judged by the seat's change less the other seat's, the best
    sum taken; no deal is begun once the greedy bot has judged `work` actions in all (a
    budget counted, not timed: the same move on every machine). For a game whose turn is
    several actions and whose moves are many (Fight Club: up to 180), where 200 iterations
    of a tree give each move one or two visits whose turn is finished at random, and where
    the greedy bot's own play is strong. With more seats the tree searches as set above.
  expect: True: no tree and no play-out (`_expect`): each of the seat's actions is tried in
    one deal of the hidden cards and judged by the mean of the seat's standing over every
    outcome of its dice, each outcome weighed by its chance (the engine's
    `outcomes(state, action)`: [(weight, the action with its dice given), ...], or None for
    an action whose result no die decides); the best mean is taken, ties at random.
    Expectimax one action deep: for a game of many small steps decided by dice (hero teams:
    an attack takes about one health point, the red die against the white), where dice
    sampled (the greedy bot's four imagined rolls, one roll a play-out) make the luckiest
    move look best and a tree of 200 iterations over 60-100 moves gives each one or two.
Pure rules code: runs on CPython and MicroPython.
"""

import binascii

from shared_rules import bots
from shared_rules import canon
from shared_rules import prng

ITERATIONS = 200
SCALE = 100
EXPLORE = 700     # the UCB constant, in reward units (a reward is -1000..1000)
_FIX = 16         # fixed-point bits of the log table
_LOG_MAX = 4096   # the table's length: availability counts beyond it use its last entry
_DRAWS = 4        # actions drawn at random to find an untried one below the root


def _log2_fixed(n):
    """log2(n) * 2**_FIX, an int, by integer arithmetic only (the same on every interpreter)."""
    whole = 0
    while n >> (whole + 1):
        whole += 1
    out = whole << _FIX
    # The fraction: square the mantissa (a _FIX-bit fixed-point number in [1, 2)) bit by bit.
    m = (n << _FIX) >> whole
    one = 1 << _FIX
    bit = one >> 1
    while bit:
        m = (m * m) >> _FIX
        if m >= 2 * one:
            m >>= 1
            out += bit
        bit >>= 1
    return out


_LOG = [0] * _LOG_MAX
for _n in range(1, _LOG_MAX):
    _LOG[_n] = _log2_fixed(_n)


_BIT_LENGTH = hasattr(int, "bit_length")     # CPython's; MicroPython has none


def _isqrt(n):
    """The integer square root of n >= 0: Newton's method from a number at least the root
    (a power of two where the interpreter can say n's length in bits, else n itself), so
    the same root on every interpreter, in fewer steps on CPython."""
    if n < 2:
        return n
    x = 1 << ((n.bit_length() + 1) >> 1) if _BIT_LENGTH else n
    y = (x + n // x) >> 1
    while y < x:
        x = y
        y = (x + n // x) >> 1
    return x


class _Node:
    def __init__(self, mover):
        self.mover = mover    # the seat whose action led here (its reward is counted)
        self.children = {}   # _key(action) -> _Node
        self.visits = 0
        self.avail = 1
        self.total = 0

    def ucb(self, explore):
        if self.visits == 0:
            return 1 << 30
        log = _LOG[self.avail if self.avail < _LOG_MAX else _LOG_MAX - 1]
        # sqrt(ln(avail) / visits) in thousandths, ln folded into EXPLORE's log2.
        return self.total // self.visits + \
            explore * _isqrt((log * 1000000) // (self.visits << _FIX)) // 1000


def _key(action):
    """A hashable, order-free form of an action (a dict of plain data): the tree's key."""
    out = []
    for k in sorted(action):
        v = action[k]
        if isinstance(v, list) and not (v and isinstance(v[0], (list, dict))):
            v = tuple(v)    # the common case: a cell [x, y], a list of ids
        elif isinstance(v, (list, dict)):
            v = _frozen(v)
        out.append((k, v))
    return tuple(out)


def _frozen(value):
    if isinstance(value, dict):
        return _key(value)
    if isinstance(value, list):
        return tuple([_frozen(v) for v in value])
    return value


def settings(engine, state=None):
    """The search's settings: the engine's `search_settings(state)` where it has one (a game
    whose modes search differently), else its `SEARCH` dict; the defaults for what they
    leave out."""
    pick = getattr(engine, "search_settings", None)
    got = (pick(state) if pick is not None and state is not None else
           getattr(engine, "SEARCH", None)) or {}
    return (got.get("iterations", ITERATIONS), got.get("scale", SCALE),
            got.get("rollout", 0), got.get("prior", 0), got.get("explore", EXPLORE),
            got.get("relative", False), got.get("turn", False), got.get("plan"),
            got.get("expect", False))


def view_rng(engine, state, seat, seed):
    """The bot's PRNG: from the seed and a CRC-32 of the seat's view (never a hidden card)."""
    text = canon.dumps(engine.view(state, seat))
    return prng.seed_state((seed * 2654435761 + binascii.crc32(text.encode())) & 0xFFFFFFFF)


def standing(engine, state, seat):
    """The search's yardstick: the engine's `hard_evaluate(state, seat)` where it has one (a
    yardstick that knows more of the game than the greedy bot's), else the greedy bot's
    (shared_rules/bots.py `evaluate`)."""
    hard = getattr(engine, "hard_evaluate", None)
    return hard(state, seat) if hard is not None else bots.evaluate(engine, state, seat)


def _standings(engine, state, seats):
    return [standing(engine, state, q) for q in seats]


def _squash(d, scale):
    return (1000 * d) // ((d if d >= 0 else -d) + scale)


def choose(engine, state, seat, seed, iterations=None):
    """The search bot's action for `seat` now, or None if it has nothing to do."""
    actions = bots.my_actions(engine, state, seat)
    if not actions:
        return None
    if len(actions) == 1:
        return actions[0]
    budget, scale, rollout, prior, explore, relative, turn, plan, expect = \
        settings(engine, state)
    if iterations is not None:
        budget = iterations
    rng = view_rng(engine, state, seat, seed)
    if expect:
        return _expect(engine, state, seat, actions, rng)
    seats = engine.seats(state)
    if plan and len(seats) == 2:
        other = seats[1] if seats[0] == seat else seats[0]
        return _plan(engine, state, seat, other, seed, actions, rng, plan)
    # Two seats: a zero-sum game, judged from the seat's side alone (an engine's yardstick
    # may look further for the seat to move, so two seats' yardsticks need not agree), or
    # by the seat's change less the other's (`relative`).
    relative = relative and len(seats) == 2
    if len(seats) == 2:
        judged = [seat] + [q for q in seats if q != seat] if relative else [seat]
    else:
        judged = seats
    order = judged + [q for q in seats if q not in judged]
    index = dict((q, i) for i, q in enumerate(order))
    root = _Node(seat)
    # The seat's own actions are the same in every deal (what it holds is its own), so the
    # root's are listed once.
    moves = [(_key(a), a) for a in actions]
    if prior:
        rng, r = prng.next32(rng)
        deal = engine.determinize(engine.copy(state), seat, prng.seed_state(r))
        hint = bots.choose("greedy", engine, deal, seat, seed)
        if hint is not None:
            node = _Node(seat)
            node.visits = prior
            node.total = 1000 * prior
            root.children[_key(hint)] = node
    for _ in range(budget):
        rng, r = prng.next32(rng)
        deal = engine.determinize(engine.copy(state), seat, prng.seed_state(r))
        before = _standings(engine, deal, judged)
        rng, path = _descend(engine, root, deal, moves, rng, explore, turn)
        rng = _play_on(engine, deal, rollout, rng)
        after = _standings(engine, deal, judged)
        if relative:
            gain = _squash((after[0] - before[0]) - (after[1] - before[1]), scale)
            rewards = [gain, -gain]
        else:
            rewards = [_squash(after[i] - before[i], scale) for i in range(len(judged))]
            if len(judged) == 1:
                rewards.append(-rewards[0])
        for node in path:
            node.visits += 1
            node.total += rewards[index[node.mover]]
    return _most_visited(root, actions)


def _plan(engine, state, seat, other, seed, actions, rng, plan):
    """The `plan` search (module docstring): the move of `candidates` (the greedy bot's best,
    judged in one deal) whose turn, finished by the greedy bot, gains the seat most over the
    other seat in `deals` deals, the same deals for every candidate (so the luck of a deal
    is the same for all and cancels out), fewer deals once `work` actions were judged (a
    turn of many choices). Ties go to the greedy bot's order."""
    candidates, deals, work = plan
    rng, r = prng.next32(rng)
    deal = engine.determinize(engine.copy(state), seat, prng.seed_state(r))
    rng, r = prng.next32(rng)
    values = bots.judged(engine, deal, seat, actions, r)
    order = sorted(range(len(actions)), key=lambda i: (-values[i], i))
    chosen = [actions[i] for i in order[:candidates]]
    if len(chosen) == 1:
        return chosen[0]
    sums = [0] * len(chosen)
    judged = len(actions)
    for d in range(deals):
        if judged >= work:
            break
        rng, r = prng.next32(rng)
        deal = engine.determinize(engine.copy(state), seat, prng.seed_state(r))
        before = standing(engine, deal, seat) - standing(engine, deal, other)
        for k in range(len(chosen)):
            trial = engine.copy(deal)
            engine.apply(trial, chosen[k])
            judged += _finish_turn(engine, trial, seat, seed + d)
            sums[k] += standing(engine, trial, seat) - \
                standing(engine, trial, other) - before
    best = 0
    for k in range(1, len(chosen)):
        if sums[k] > sums[best]:
            best = k
    return chosen[best]


def _expect(engine, state, seat, actions, rng):
    """The `expect` search (module docstring): the action of the best mean standing over
    its outcomes, in one deal of what the seat cannot see; ties at random, in the order of
    `actions`. Means are compared as fractions (total, weight), in integers."""
    rng, r = prng.next32(rng)
    deal = engine.determinize(engine.copy(state), seat, prng.seed_state(r))
    best = None
    pool = []
    for action in actions:
        total, weight = mean_standing(engine, deal, seat, action)
        if best is not None:
            # total / weight against best[0] / best[1], both weights > 0.
            ahead = total * best[1] - best[0] * weight
            if ahead < 0:
                continue
            if ahead == 0:
                pool.append(action)
                continue
        best = (total, weight)
        pool = [action]
    rng, i = prng.below(rng, len(pool))
    return pool[i]


def mean_standing(engine, state, seat, action):
    """(the sum of the seat's standing over the action's outcomes, each times its weight,
    the sum of the weights): the action tried on copies of `state`, every outcome of its
    dice once (the engine's `outcomes`), or once as it is when no die decides it."""
    outcomes = engine.outcomes(state, action)
    if outcomes is None:
        outcomes = [(1, action)]
    total = 0
    weight = 0
    for w, concrete in outcomes:
        trial = engine.copy(state)
        engine.apply(trial, concrete)
        total += w * standing(engine, trial, seat)
        weight += w
    return total, weight


_TURN_STEPS = 15    # a turn finished by the greedy bot: at most this many more actions


def _finish_turn(engine, deal, seat, seed):
    """The greedy bot plays the seat's turn on to its end (another seat to act); returns
    how many actions it judged."""
    judged = 0
    for _ in range(_TURN_STEPS):
        if engine.status(deal) != "ongoing" or engine.actors(deal) != [seat]:
            break
        actions = bots.my_actions(engine, deal, seat)
        if not actions:
            break
        judged += len(actions)
        engine.apply(deal, bots.choose("greedy", engine, deal, seat, seed, actions))
    return judged


def _descend(engine, root, deal, moves, rng, explore, turn=False):
    """Walk the tree in this deal and add one node: (rng, the path of nodes); the deal is
    played along the path (`turn`: only the root seat's actions, to the end of its turn)."""
    node = root
    path = []
    while engine.status(deal) == "ongoing":
        if node is root:
            legal = moves
        else:
            actions = bots.my_actions(engine, deal, root.mover) if turn else \
                engine.legal_actions(deal)
            if not actions:
                break
            if len(node.children) < len(actions):
                # Some action here is untried: draw a few at random, and expand the first
                # untried one drawn, without keying every action (the siblings' availability
                # counts then miss this visit: a node below the root is rarely expanded
                # whole within the budget).
                for _ in range(_DRAWS):
                    rng, i = prng.below(rng, len(actions))
                    key = _key(actions[i])
                    if key not in node.children:
                        return rng, _expand(engine, node, deal, key, actions[i], path)
            legal = [(_key(a), a) for a in actions]
        if not legal:
            break
        fresh = []
        best = None
        best_value = None
        for key, action in legal:
            child = node.children.get(key)
            if child is None:
                fresh.append((key, action))
                continue
            child.avail += 1
            value = child.ucb(explore)
            if best_value is None or value > best_value:
                best, best_value = (child, action), value
        if fresh:
            # Expand an untried action, one at random.
            rng, i = prng.below(rng, len(fresh))
            key, action = fresh[i]
            return rng, _expand(engine, node, deal, key, action, path)
        child, action = best
        engine.apply(deal, action)
        path.append(child)
        node = child
    return rng, path


def _expand(engine, node, deal, key, action, path):
    child = _Node(engine.actor(deal, action))
    node.children[key] = child
    engine.apply(deal, action)
    path.append(child)
    return path


def _play_on(engine, deal, steps, rng):
    for _ in range(steps):
        if engine.status(deal) != "ongoing":
            break
        legal = engine.legal_actions(deal)
        if not legal:
            break
        rng, i = prng.below(rng, len(legal))
        engine.apply(deal, legal[i])
    return rng


def _most_visited(root, actions):
    best = None
    best_key = None
    for action in actions:
        child = root.children.get(_key(action))
        if child is None:
            continue
        key = (child.visits, child.total)
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best if best is not None else actions[0]
