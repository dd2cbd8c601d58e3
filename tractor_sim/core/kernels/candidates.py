"""The plays a search tries at a lead or a follow: a short list of distinct legal plays, compiled.

A search rolls every candidate out in every world, so the list must be
short and hold no two plays that cannot lead to different outcomes.

* **Equivalent cards are merged.**  Two cards of one effective suit are
  interchangeable when they score the same, the seat holds as many of each,
  and no card at a position between them (both included) can be anywhere
  but in the seat's hand or already played (or buried by the seat itself):
  no other seat can ever tell them apart.  Such cards form a *class*; a
  candidate takes from a class only in its canonical order (the lowest
  cards first), so a set of equivalent plays appears once.
* **A lead**: in each effective suit held, every single and pair of a
  class's lowest card, every tractor held (each top and length), and one
  throw: every unit of the suit's decomposition that no card outside the
  seat's knowledge could beat (``combos.beats_unit`` on the union of the
  unknown cards: if together they cannot beat it, no seat can), when that
  makes two units or more.  A throw that might fail is never tried.
* **A follow**: the legal multisets of the lead's size (the led suit's
  cards first, as many as the rule asks; ``combos.follow_ok`` decides),
  enumerated in canonical order up to a cap (``max_out``) and a budget of
  multisets tried (MAX_TRIED): long follows of a void hand have thousands.

* **A burial**: the base policy's burial, then its neighbours: one buried
  card swapped for one kept card, the swaps that take the most value out of
  the kitty first (points, then trumps, then position: ``keep_value``).
* **A declaration** (during the draw): the base policy's answer, the pass,
  then every declaration the rules allow the seat now (each card of the
  trump rank or joker it holds, each count it may show), the most cards
  first: few enough to try them all.
* **An auction step** (rule ``declaring = "auction"``): a bid: the pass (a
  bid of 0), then the bids nearest the base policy's first; a card shown:
  every card held, the highest first; the trump named: every suit.
* **A Finding Friends call**: the base policy's calls, then every set of
  calls one call away (one call's copy changed, then its card and copy, the
  highest ranks first): 96 at 5 players with two decks.

Only the seat's own knowledge is read: its hand, the cards played (its
view) and what it buried, so the sampled search never looks at a hidden
card through its candidates.
"""

from numba import njit

from . import combos as C
from .declare import ANS_CARD, ANS_COUNT, ANS_KIND, BID_UNIT, can_declare, can_declare_count, kind_of, show_key
from .order import META_NCARDS, MAX_POS, TRUMP, TT_EFF, TT_POS, TT_SUIT, TT_META
from .scoring import POINTS
from .dims import BJ, CALLS, CARDS, DECKS, EFF_SUITS, KITTY, PAIR, RANKS, RJ, SEATS, SUITS
from .unowned import stack_array
from .view import BID_STEP_BID, BID_STEP_SHOW, MAX_BID, V_BURIED, V_HAND, V_PLAYED

MAX_CANDIDATES = 128  # rows of a candidate list, at most (a call's neighbours: 96 at 5 players, two decks)
KEEP_RADIX = MAX_POS + 1  # keep_value's digits: points, then trump or not, then position (each below it)
MAX_TRIED = 20_000  # follows: multisets tried before the enumeration stops
NO_CLASS = -1
MIN_THROW_UNITS = 2  # a throw is two units or more
JOKER_KINDS = 2  # a declaration's cards: the two jokers, then a card of the rank in each suit
SWAPS = KITTY * CARDS  # burial_candidates: swaps of a buried card for a kept one, at most
SWAP_RADIX = CARDS * CARDS  # its keys: a swap's number (buried card x CARDS + kept card) is below it


@njit(cache=True)
def unknown_cards(view, unknown):
    """unknown[c]: copies of card c that the seat cannot place (not in its hand, not played, not
    buried by itself): the cards the other hands and the kitty hold between them."""
    for c in range(CARDS):
        gone = view[V_HAND, c] + view[V_BURIED, c]
        for s in range(SEATS):
            gone += view[V_PLAYED + s, c]
        unknown[c] = DECKS - gone


@njit(cache=True, inline='always')
def _unknown_of_suit(view, tt, s, unknown):
    """unknown_cards for the cards of effective suit s only (the other cells left as they were)."""
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        gone = view[V_HAND, c] + view[V_BURIED, c]
        for x in range(SEATS):
            gone += view[V_PLAYED + x, c]
        unknown[c] = DECKS - gone


@njit(cache=True)
def card_classes(hand, unknown, tt, cls):
    """cls[c]: the class of each held card (the id of its lowest member), NO_CLASS for cards not held.

    Walks each effective suit in ascending order; a held card joins the previous held card's class
    when they score the same, the hand holds as many of each, and no unknown card lies at a
    position from the previous one's to its own."""
    for c in range(CARDS):
        cls[c] = NO_CLASS
    for s in range(EFF_SUITS):
        suit_classes(hand, unknown, tt, cls, s)


@njit(cache=True)
def suit_classes(hand, unknown, tt, cls, s):
    """card_classes for the held cards of effective suit s only (the classes never span suits); reads
    unknown[] of that suit's cards only."""
    unknown_at = stack_array(MAX_POS)  # per position of the suit: an unknown card there
    for q in range(MAX_POS):
        unknown_at[q] = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        d = tt[TT_SUIT + s, i]
        if unknown[d] > 0:
            unknown_at[tt[TT_POS, d]] = 1
    prev = -1
    clear_since = True  # no unknown card from the previous held card's position up to here
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if hand[c] == 0:
            if unknown[c] > 0:
                clear_since = False
            continue
        same_pos_unknown = unknown_at[tt[TT_POS, c]] != 0  # an unknown card at this card's position
        if (prev >= 0 and clear_since and not same_pos_unknown and unknown[c] == 0 and unknown[prev] == 0
                and POINTS[c] == POINTS[prev] and hand[c] == hand[prev]):
            cls[c] = cls[prev]
        else:
            cls[c] = c
        prev = c
        clear_since = not same_pos_unknown and unknown[c] == 0


@njit(cache=True)
def _add(cands, n, play, max_out):
    """Append ``play`` (counts) unless the list is full or holds it already; returns the new length."""
    if n >= max_out:
        return n
    first = 0  # the play's first card: most listed plays differ there, so it is looked at first
    while first < CARDS - 1 and play[first] == 0:
        first += 1
    return _add_at(cands, n, play, first, max_out)


@njit(cache=True)
def _add_at(cands, n, play, first, max_out):
    """_add for a play whose first card (lowest id held) the caller knows: a play of one card id."""
    if n >= max_out:
        return n
    for i in range(n):
        if cands[i, first] != play[first]:
            continue
        same = True
        for c in range(CARDS):
            if cands[i, c] != play[c]:
                same = False
                break
        if same:
            return n
    for c in range(CARDS):
        cands[n, c] = play[c]
    return n + 1


@njit(cache=True)
def lead_candidates(hand, view, tt, cands, n, max_out):
    """Append the lead candidates of the seat (module docstring) to ``cands[n:]``; returns the length."""
    unknown = stack_array(CARDS)
    unknown_cards(view, unknown)
    cls = stack_array(CARDS)
    card_classes(hand, unknown, tt, cls)
    play = stack_array(CARDS)
    pa = stack_array(MAX_POS)
    for s in range(EFF_SUITS):  # the plays of several cards first: a full list keeps them
        ncs = tt[TT_META, META_NCARDS + s]
        n = _safe_throw(hand, unknown, tt, s, play, pa, cands, n, max_out)
        # tractors: every run of consecutive positions with a pair, each top and length
        npos = C.pairs_by_position(hand, tt, s, pa)
        for top in range(npos):
            length = 0
            while top - length >= 0 and pa[top - length] > 0:
                length += 1
                if length >= C.MIN_TRACTOR:
                    for d in range(CARDS):
                        play[d] = 0
                    for q in range(top - length + 1, top + 1):
                        for i in range(ncs):  # the lowest card with a pair at position q
                            c = tt[TT_SUIT + s, i]
                            if tt[TT_POS, c] == q and hand[c] >= PAIR:
                                play[c] = PAIR
                                break
                    n = _add(cands, n, play, max_out)
    for d in range(CARDS):
        play[d] = 0
    for k in range(PAIR, 0, -1):  # pairs, then singles: of a class's lowest card
        for s in range(EFF_SUITS):
            for i in range(tt[TT_META, META_NCARDS + s]):
                c = tt[TT_SUIT + s, i]
                if hand[c] < k or cls[c] != c:
                    continue
                play[c] = k
                n = _add_at(cands, n, play, c, max_out)
                play[c] = 0
    return n


@njit(cache=True)
def _safe_throw(hand, unknown, tt, s, play, pa, cands, n, max_out):
    """Append the throw of every unit of suit s that no unknown card can beat, if that is two units
    or more and its own decomposition is as safe."""
    held = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        held += hand[tt[TT_SUIT + s, i]]
    if held < MIN_THROW_UNITS:  # fewer cards than units a throw needs (the common short suit: no work)
        return n
    top_unknown = -1  # the highest position of an unknown card: a single below it is beaten
    for i in range(tt[TT_META, META_NCARDS + s]):
        d = tt[TT_SUIT + s, i]
        if unknown[d] > 0:
            top_unknown = max(top_unknown, tt[TT_POS, d])
    multiple = False  # a card held more than once: units of several cards, which a higher single cannot beat
    top_singles = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        d = tt[TT_SUIT + s, i]
        if hand[d] > 1:
            multiple = True
        elif hand[d] == 1 and tt[TT_POS, d] >= top_unknown:
            top_singles += 1
    if not multiple and top_singles < MIN_THROW_UNITS:  # singles only, fewer than two of them safe
        return n
    units, ucards = C.stack_units()
    for d in range(CARDS):
        play[d] = hand[d] if tt[TT_EFF, d] == s else 0
    nu = C.decompose(play, tt, units, ucards)
    if nu < MIN_THROW_UNITS:
        return n
    upa = stack_array(MAX_POS)  # the unknown cards' pairs by position: what every unit is tested against
    unpos = C.pairs_by_position(unknown, tt, s, upa)
    for d in range(CARDS):
        play[d] = 0
    kept = 0
    for i in range(nu):
        if not _beaten(upa, unpos, top_unknown, units[i, C.UNIT_PAIRS], units[i, C.UNIT_TOP]):
            _add_unit(units, ucards, i, play)
            kept += 1
    if kept < MIN_THROW_UNITS:
        return n
    nu = C.decompose(play, tt, units, ucards)  # the units the engine will see
    for i in range(nu):
        if _beaten(upa, unpos, top_unknown, units[i, C.UNIT_PAIRS], units[i, C.UNIT_TOP]):
            return n
    return _add(cands, n, play, max_out)


@njit(cache=True, inline='always')
def _beaten(upa, unpos, top_unknown, npairs, top):
    """combos.beats_unit(unknown, ...) of one suit from what it reads once per suit: the highest
    position of an unknown card (``top_unknown``) and the unknown pairs by position (``upa[:unpos]``)."""
    if npairs == 0:
        return top_unknown > top
    return C.pairs_run_above(upa, unpos, top, npairs)


@njit(cache=True, inline='always')
def _add_unit(units, ucards, i, play):
    """play += the cards of unit i (combos.unit_counts, added in place)."""
    k = units[i, C.UNIT_PAIRS]
    if k == 0:
        play[ucards[i, 0]] += 1
    else:
        m = units[i, C.UNIT_SIZE] if DECKS > PAIR else PAIR
        for j in range(k):
            play[ucards[i, j]] += m


@njit(cache=True)
def follow_candidates(hand, view, tt, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, rules, cands, n,
                      max_out):
    """Append the legal follows of the seat (module docstring) to ``cands[n:]``; returns the length.

    The cards to choose from: the led suit's when the hand holds at least ``lead_n`` of it; else
    all of them are played and the rest is chosen from the other suits."""
    held = 0
    for c in range(CARDS):
        if tt[TT_EFF, c] == lead_suit:
            held += hand[c]
    unknown = stack_array(CARDS)
    cls = stack_array(CARDS)
    if held >= lead_n:  # the pool is the led suit's: only its classes are read, and its unknown cards
        for c in range(CARDS):
            cls[c] = NO_CLASS
        _unknown_of_suit(view, tt, lead_suit, unknown)
        suit_classes(hand, unknown, tt, cls, lead_suit)
    else:
        unknown_cards(view, unknown)
        card_classes(hand, unknown, tt, cls)
    base = stack_array(CARDS)  # cards played in any case
    pool = stack_array(CARDS)  # the distinct cards to choose from, in suit order
    for c in range(CARDS):
        base[c] = 0
    npool = 0
    if held >= lead_n:
        left = lead_n
        for i in range(tt[TT_META, META_NCARDS + lead_suit]):
            c = tt[TT_SUIT + lead_suit, i]
            if hand[c] > 0:
                pool[npool] = c
                npool += 1
    else:
        left = lead_n - held
        for e in range(EFF_SUITS):  # the plain suits, then trumps (TRUMP is the last)
            for i in range(tt[TT_META, META_NCARDS + e]):
                c = tt[TT_SUIT + e, i]
                if hand[c] > 0:
                    if e == lead_suit:
                        base[c] = hand[c]
                    else:
                        pool[npool] = c
                        npool += 1
    if lead_n == 1:  # a single led: every card of the pool is legal alone (the led suit's, or any when void)
        return _singles(cls, pool, npool, cands, n, max_out)
    return _enumerate(hand, cls, pool, npool, base, left, tt, lead_suit, lead_n, lead_pairs, lead_kind, lead_units,
                      lead_nu, rules, cands, n, max_out)


@njit(cache=True)
def _singles(cls, pool, npool, cands, n, max_out):
    """_enumerate's list for one card led, without asking the follow rule: each class's first card of
    the pool, in pool order (its canonical order keeps a class's later cards out)."""
    play = stack_array(CARDS)
    for d in range(CARDS):
        play[d] = 0
    for i in range(npool):
        c = pool[i]
        if i > 0 and cls[c] != NO_CLASS and cls[pool[i - 1]] == cls[c]:
            continue
        play[c] = 1
        n = _add_at(cands, n, play, c, max_out)
        play[c] = 0
    return n


@njit(cache=True)
def _enumerate(hand, cls, pool, npool, base, left, tt, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu,
               rules, cands, n, max_out):
    """Depth-first over pool[0..npool): take[i] copies of pool[i], ``left`` in all, each at most the
    count of the card before it in its class (canonical order); every complete choice the follow
    rule accepts is appended."""
    take = stack_array(CARDS)
    play = stack_array(CARDS)
    for i in range(npool):
        take[i] = -1
    if npool == 0:
        if left == 0:
            return _add(cands, n, base, max_out)
        return n
    for d in range(CARDS):  # the choice is added to base and taken off again after the test
        play[d] = base[d]
    held = C.suit_count(hand, tt, lead_suit)  # the hand's side of the follow rule: the same for every choice
    held_pairs = C.suit_pairs(hand, tt, lead_suit)
    base_in = C.suit_count(base, tt, lead_suit)  # the base's: the pool holds no card of the base
    base_pairs = C.suit_pairs(base, tt, lead_suit)
    i = 0
    rest = left
    tried = 0
    while i >= 0 and n < max_out and tried < MAX_TRIED:
        c = pool[i]
        # the next option for position i: counts go from the most allowed down to 0
        if take[i] < 0:
            most = min(hand[c], rest)
            if i > 0 and cls[c] != NO_CLASS and cls[pool[i - 1]] == cls[c]:
                most = min(most, take[i - 1])
            take[i] = most
        else:
            rest += take[i]
            take[i] -= 1
            if take[i] < 0:
                i -= 1
                continue
        rest -= take[i]
        if rest == 0:
            tried += 1
            if DECKS > PAIR:
                verdict = C.FOLLOW_CHECK_TRACTORS  # follow_ok decides, on the play
            else:  # the follow rule's counts of the play, from the choice: combos.follow_ok's first test
                played = base_in
                played_pairs = base_pairs
                for j in range(i + 1):
                    if tt[TT_EFF, pool[j]] == lead_suit:
                        played += take[j]
                        played_pairs += take[j] // PAIR
                verdict = C.follow_counts_ok(lead_n, held, played, held_pairs, played_pairs, lead_n, lead_pairs,
                                             lead_kind, rules)
            if verdict == C.FOLLOW_ILLEGAL:
                continue
            for j in range(i + 1):
                play[pool[j]] += take[j]
            if verdict == C.FOLLOW_LEGAL or _follow_legal(hand, play, lead_suit, lead_n, lead_pairs, lead_kind,
                                                          lead_units, lead_nu, tt, rules):
                n = _add(cands, n, play, max_out)
            for j in range(i + 1):
                play[pool[j]] -= take[j]
            continue  # next option at the same depth
        if i + 1 < npool:
            i += 1
            take[i] = -1
        # else: not enough cards left on this path; the next option at the same depth
    return n


@njit(cache=True, inline='always')
def _follow_legal(hand, play, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt, rules):
    """The rest of combos.follow_ok once the counts allow the play (FOLLOW_CHECK_TRACTORS); all of it
    with 3 and 4 decks."""
    if DECKS > PAIR:
        return C.follow_ok(hand, play, lead_n, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt,
                           rules)
    return C.tractors_followed(hand, play, lead_suit, lead_units, lead_nu, tt)


@njit(cache=True, inline='always')
def keep_value(c, tt):
    """How much a card is worth keeping rather than burying: its points first, then being a trump,
    then its position in its effective suit (an order for trying swaps, not a strategy)."""
    trump = 1 if tt[TT_EFF, c] == TRUMP else 0
    return (POINTS[c] * KEEP_RADIX + trump) * KEEP_RADIX + tt[TT_POS, c]


@njit(cache=True)
def burial_candidates(hand, tt, cands, n, max_out):
    """After the base burial in cands[0]: the burials one swap away (a buried card kept, a kept card
    buried), the swaps that move the most keep_value out of the kitty first (ties: by buried card,
    then kept card, ids ascending); returns the list's length.  ``hand`` holds the hand and the
    kitty (the starter's cards at the exchange).  On the stack only: the learned burial lists them too."""
    if n >= max_out:
        return n
    base = cands[0]
    keys = stack_array(SWAPS)  # the best swaps, best first: gain x SWAP_RADIX - (b x CARDS + k), all distinct
    cap = min(SWAPS, max_out)  # enough: each swap is another play, only a row already past the base repeats
    m = 0
    for b in range(CARDS):
        if base[b] == 0:
            continue
        out_value = keep_value(b, tt)
        for k in range(CARDS):
            if k == b or hand[k] - base[k] <= 0:
                continue
            key = (out_value - keep_value(k, tt)) * SWAP_RADIX - (b * CARDS + k)
            if m == cap and keys[m - 1] > key:
                continue
            j = m if m < cap else m - 1  # insertion, descending; the last falls off a full list
            while j > 0 and keys[j - 1] < key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
            m = min(m + 1, cap)
    given = n  # the rows listed before: a swap differs from the base and from every other swap
    for i in range(m):
        if n >= max_out:
            break
        swap = (-keys[i]) % SWAP_RADIX
        b, k = swap // CARDS, swap % CARDS
        for c in range(CARDS):
            cands[n, c] = base[c]
        cands[n, b] -= 1
        cands[n, k] += 1
        if not _repeats(cands, given, n):
            n += 1
    return n


@njit(cache=True, inline='always')
def _repeats(cands, given, n):
    """Whether row n equals one of rows 1..given-1 (rows past the base listed before the swaps)."""
    for i in range(1, given):
        same = True
        for c in range(CARDS):
            if cands[i, c] != cands[n, c]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True)
def declare_candidates(hand, seat, cur_seat, cur_kind, cur_count, cur_card, rank, rules, cands, n, max_out):
    """After the base policy's answer in cands[0] (a declaration as the answer buffer holds it: kind,
    card, and with more decks the count; the pass all zero): the pass, then every declaration the
    rules allow ``seat`` over the standing one, the most cards first (jokers before suits at a count);
    returns the list's length.  With two decks a row's count is left 0 (the kind says it)."""
    play = stack_array(CARDS)
    for c in range(CARDS):
        play[c] = 0
    n = _add(cands, n, play, max_out)
    for count in range(DECKS, 0, -1):
        for i in range(JOKER_KINDS + SUITS):
            card = RJ if i == 0 else BJ if i == 1 else (i - JOKER_KINDS) * RANKS + rank
            if hand[card] < count or (card >= BJ and count < PAIR):
                continue
            kind = kind_of(count, card)
            if DECKS > PAIR:
                ok = can_declare_count(hand, kind, count, card, seat, cur_seat, cur_kind, cur_count, cur_card, rank,
                                       rules)
            else:
                ok = can_declare(hand, kind, card, seat, cur_seat, cur_kind, cur_card, rank, rules)
            if not ok:
                continue
            play[ANS_KIND] = kind
            play[ANS_CARD] = card
            play[ANS_COUNT] = count if DECKS > PAIR else 0
            n = _add(cands, n, play, max_out)
    return n


@njit(cache=True)
def bid_row(row, step):
    """A bid strategy's answer as a candidate row: a bid or a suit in row[0] only (the rest of the
    answer buffer is not read by the rules), a card shown as its counts."""
    if step != BID_STEP_SHOW:
        row[1:] = 0


@njit(cache=True)
def bid_candidates(hand, step, cands, n, max_out):
    """An auction step's candidates after the base policy's answer in cands[0] (kernels.view, "bid":
    a bid or a suit in out[0], or the counts of the card shown; kernels.search normalises the row):
    at BID_STEP_BID the pass (a bid of 0), then the bids nearest the base's, the lower first at
    equal distance; at BID_STEP_SHOW every card held, the highest (declare.show_key) first; at
    BID_STEP_TRUMP every suit.  Returns the list's length."""
    play = stack_array(CARDS)
    for c in range(CARDS):
        play[c] = 0
    if step == BID_STEP_BID:
        n = _add(cands, n, play, max_out)  # the pass: nothing bid
        base = cands[0, 0]
        for d in range(BID_UNIT, MAX_BID + 1, BID_UNIT):
            for bid in (base - d, base + d):
                if 0 <= bid <= MAX_BID:
                    play[0] = bid
                    n = _add(cands, n, play, max_out)
        return n
    if step == BID_STEP_SHOW:
        for key in range(RANKS + 1, -1, -1):
            for c in range(CARDS - 1, -1, -1):
                if hand[c] > 0 and show_key(c) == key:
                    play[c] = 1
                    n = _add(cands, n, play, max_out)
                    play[c] = 0
        return n
    for suit in range(SUITS):
        play[0] = suit
        n = _add(cands, n, play, max_out)
    return n


@njit(cache=True)
def call_candidates(rank, cands, n, max_out):
    """Finding Friends' calls after the base policy's in cands[0] (out[j] the card, out[CALLS + j]
    its copy): every set of calls one call away from the base's, call by call: its copy changed,
    then its card (any card neither a joker nor of the trump ``rank``, friends.calls_ok), the
    highest ranks first, each at the base's copy first, then the others.  Returns the list's length."""
    play = stack_array(CARDS)
    for j in range(CALLS):
        for c in range(CARDS):
            play[c] = cands[0, c]
        base_copy = cands[0, CALLS + j]
        for copy in range(1, DECKS + 1):
            play[CALLS + j] = copy
            n = _add(cands, n, play, max_out)
        for r in range(RANKS - 1, -1, -1):
            if r == rank:
                continue
            for suit in range(SUITS):
                play[j] = suit * RANKS + r
                play[CALLS + j] = base_copy
                n = _add(cands, n, play, max_out)
                for copy in range(1, DECKS + 1):
                    if copy != base_copy:
                        play[CALLS + j] = copy
                        n = _add(cands, n, play, max_out)
    return n
