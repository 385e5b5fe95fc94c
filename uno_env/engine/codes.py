"""Integer codes shared by every kernel: colours, ranks, phases, and the named slots of
the per-game ``info``, ``rules`` and ``layout`` arrays. Pure constants; numba freezes
module globals into the compiled code, so reading them costs nothing.
"""

MAX_PLAYERS = 10  # players at one table at most (``uno_env.rules`` checks it)

# --- colours (docs/rules.md section 1). Light R Y G B, Flip's dark side P T O V. -------------
RED, YELLOW, GREEN, BLUE, PINK, TEAL, ORANGE, PURPLE = range(8)
NO_COLOR = 8  # a wild face has no colour of its own; also "no colour named yet"
LIGHT_COLORS = (RED, YELLOW, GREEN, BLUE)
DARK_COLORS = (PINK, TEAL, ORANGE, PURPLE)

# --- ranks: 0-9 are numbers, then every action and wild rank of every variant. ----------
SKIP, REVERSE, DRAW2, DRAW1, DRAW5, SKIP_EVERYONE, FLIP = range(10, 17)
WILD, WILD4, WILD2, WILD_COLOR, WILD_SHUFFLE, WILD_CUSTOM = range(17, 23)
SHANKS, BLACKBEARD, ACE, HANCOCK = range(23, 27)
NUM_RANKS = 27
FIRST_WILD_RANK = WILD  # ranks >= this are wild faces (no colour, playable on anything)

# --- columns of the card counts after info's slots (engine/tallies.py): colour slots, ranks
T_SLOT = 0
T_RANK = 5
NUM_TALLIES = T_RANK + NUM_RANKS


# --- phases: what kind of decision the current player faces. ----------------------------
PHASE_PLAY = 0        # play a card or draw (docs/rules.md 2, "A turn")
PHASE_DRAWN = 1       # play the card just drawn, or pass
PHASE_CHALLENGE = 2   # answer a Wild Draw Four: challenge or accept
PHASE_COLOR = 3       # name the colour of a wild turned up as the first card
# house rules (docs/rules.md 3, engine/house.py)
PHASE_STACK = 4       # answer a pending draw by stacking, accepting (or challenging)
PHASE_JUMP_IN = 5     # out-of-turn play of an identical card, or pass
PHASE_SWAP = 6        # 7-0: choose whom to swap hands with
PHASE_GIVE = 7        # One Piece Shanks: choose the card to give
PHASE_MULTI = 8       # multi-play: continue with the same rank, or pass
PHASE_OVER = 9        # the episode has ended (round/match over or truncated)
NUM_PHASES = 10
PHASE_NAMES = ("play", "drawn", "challenge", "color", "stack", "jump_in", "swap",
               "give", "multi", "over")

# --- episode status ---------------------------------------------------------------------
STATUS_PLAYING = 0
STATUS_OVER = 1        # terminated: a round (target_score=0) or a match was won
STATUS_TRUNCATED = 2   # max_turns reached

# --- info[g, slot]: the per-game scalars of the state --------------------------------------
I_CURRENT = 0          # seat that must decide now
I_DIRECTION = 1        # +1 or -1
I_COLOR = 2            # colour in force (the named colour after a wild), NO_COLOR if none
I_PHASE = 3
I_DRAW_LEN = 4         # cards in the draw pile; its top is draw_pile[g, I_DRAW_LEN - 1]
I_DISCARD_LEN = 5      # cards in the discard pile; its top is discard[g, I_DISCARD_LEN - 1]
I_DRAWN_TYPE = 6       # PHASE_DRAWN: the type just drawn, else -1
I_UNO_CALLED = 7       # seat that declared UNO in the current turn, else -1
I_CATCH_PENDING = 8    # seat whose play left one card without a call, this turn, else -1
I_CATCHABLE = 9        # seat that can be caught by the next decider, else -1
I_W4_PLAYER = 10       # PHASE_CHALLENGE: who played the Wild Draw Four
I_W4_GUILTY = 11       # 1 if that player held a card of the colour in force before it
I_W4_PREV_COLOR = 12   # colour in force before the Wild Draw Four
I_TURNS = 13           # turns ended in this round (a skipped player has no turn)
I_STATUS = 14          # STATUS_*
I_WINNER = 15          # winner of the last round, else -1
I_MATCH_WINNER = 16    # winner of the match, else -1
I_DEALER = 17
I_ROUND = 18           # rounds dealt in this match (1 for the first)
I_SIDE = 19            # UNO Flip: 0 light, 1 dark (always 0 for single-sided decks)
I_LAST_ROUND_OVER = 20  # 1 from the step that ends a round until the next step
# statistics (public counters for simulate() and notebooks)
I_STAT_CARDS_DRAWN = 21
I_STAT_W4_PLAYED = 22
I_STAT_W4_BLUFFS = 23
I_STAT_CHALLENGES = 24
I_STAT_CHALLENGES_WON = 25  # the challenger was right (the player was guilty)
I_STAT_RESHUFFLES = 26
I_STAT_CATCHES = 27
I_PENDING_DRAW = 28    # cards the current decider must draw if they accept (0 if none);
#                        with stacking, the running total (docs/rules.md 3)
# house rules (engine/house.py)
I_JUMP_FROM = 29       # PHASE_JUMP_IN: seat whose play opened the jump-in window, else -1
I_RESUME_SEAT = 30     # PHASE_JUMP_IN: the decision that follows if nobody jumps in ...
I_RESUME_PHASE = 31    # ... and its phase
I_MULTI_COUNT = 32     # cards played so far in the current multi-play sequence
I_SWAPS_LEFT = 33      # PHASE_SWAP: swaps still to choose (k sevens give k swaps)
I_STAT_STACKED = 34    # draw cards played onto a pending draw
I_STAT_JUMP_INS = 35
I_STAT_MULTI = 36      # cards played after the first of a multi-play sequence
I_STAT_EXCHANGES = 37  # hand exchanges: 7 swaps, 0 rotations, WS shuffles
# UNO One Piece (engine/onepiece.py; the Hancock player is kept in I_JUMP_FROM)
I_STAT_PETRIFY = 38    # Hancock cards played (everyone else petrified unless broken)
I_STAT_BREAKS = 39     # Hancock petrifications broken by a Luffy card
I_STAT_ACE = 40        # Ace combinations played (ACE+X)
I_STAT_GIVES = 41      # Shanks gives
# UNO Flip (engine/flip.py)
I_STAT_FLIPS = 42      # F cards played (each turns the piles and the hands over)
# the hand a challenge showed (docs/rules.md 2.5; ``State.shown`` holds its counts)
I_SHOWN_TO = 43        # the challenger, until the end of its next turn; -1 if none
I_SHOWN_BY = 44        # whose hand it was
NUM_INFO = 45

# --- rules[slot]: the rules record compiled to scalars (uno_env.rules.Rules.compile) -------
R_NUM_PLAYERS = 0
R_HAND_SIZE = 1
R_BLUFF = 2
R_UNO_CALL = 3
R_SCORING = 4          # SCORING_*
R_TARGET_SCORE = 5
R_MAX_TURNS = 6
R_DEALER = 7
R_REWARD = 8           # REWARD_*
R_TEAMS = 9
R_STACK = 10           # STACK_*
R_SEVEN_ZERO = 11
R_JUMP_IN = 12
R_FORCE_PLAY = 13
R_NO_DRAW_IF_PLAYABLE = 14
R_DRAW_UNTIL_PLAYABLE = 15
R_MULTI_PLAY = 16
R_WX_RULE = 17
R_WS_LAST_CARD_WINS = 18
# UNO One Piece (engine/onepiece.py)
R_OP_CHALLENGE = 19    # CHALLENGE_CLASSIC or CHALLENGE_RETURN (guilty W4 goes back)
R_OP_SHANKS_GIVE = 20  # 1: Shanks gives a card with any player count; 0: two players only
R_OP_BBD_CHALLENGE = 21  # 1: Blackbeard is restricted/challengeable like a W4
R_SETTLE_CUT = 22      # 1: a round cut by max_turns pays each seat by its standing
NUM_RULES = 23

SCORING_WINNER, SCORING_PENALTY, SCORING_ELIMINATION = 0, 1, 2
CHALLENGE_CLASSIC, CHALLENGE_RETURN = 0, 1
REWARD_WIN, REWARD_SCORE = 0, 1
STACK_NONE, STACK_SAME, STACK_ANY = 0, 1, 2
WX_WILD, WX_DRAW1, WX_SWAP = 0, 1, 2

# --- layout[slot]: first action id of each block (uno_env.rules.actions.ActionLayout) -----------
L_PLAY = 0       # one action per card type with a coloured face
L_NUM_PLAY = 1
L_WILD = 2       # four actions (colour slot 0-3) per card type with a wild face
L_NUM_WILD = 3
L_DRAW = 4
L_PASS = 5
L_CHALLENGE = 6
L_ACCEPT = 7
L_UNO = 8
L_CATCH = 9
L_COLOR = 10     # four actions: name colour slot 0-3 (of the active side)
L_SIZE = 11      # number of actions
L_OBS_SIZE = 12  # length of the observation vector
L_SWAP = 13      # seven_zero (or wx_rule="swap"): swap:+1 .. swap:+(P-1); else = L_SIZE
L_NUM_SWAP = 14  # P - 1 with that block, else 0
# UNO One Piece (only with the onepiece110 deck; else first id = L_SIZE, count 0)
L_ACE = 15       # ACE+X: one action per coloured action type (S, R, D2), deck order
L_NUM_ACE = 16
L_GIVE = 17      # give:X (Shanks): one action per card type
L_NUM_GIVE = 18
NUM_LAYOUT = 19

# --- the counters every game keeps (``simulate``'s ``SimResult.counters``) ---------------
#: (name, info slot); ``w4_played``/``w4_bluffs`` count every challengeable wild draw
#: (UNO Flip: W2, WC); the One Piece and Flip counters stay 0 with other decks
COUNTERS = (("cards_drawn", I_STAT_CARDS_DRAWN), ("w4_played", I_STAT_W4_PLAYED),
            ("w4_bluffs", I_STAT_W4_BLUFFS), ("challenges", I_STAT_CHALLENGES),
            ("challenges_won", I_STAT_CHALLENGES_WON), ("reshuffles", I_STAT_RESHUFFLES),
            ("catches", I_STAT_CATCHES), ("rounds", I_ROUND), ("stacked", I_STAT_STACKED),
            ("jump_ins", I_STAT_JUMP_INS), ("multi_extra", I_STAT_MULTI),
            ("exchanges", I_STAT_EXCHANGES), ("petrifications", I_STAT_PETRIFY),
            ("breaks", I_STAT_BREAKS), ("ace_combos", I_STAT_ACE), ("gives", I_STAT_GIVES),
            ("flips", I_STAT_FLIPS))

# --- observation fields (``engine/observe.py``): ``Spec.obs_at[O_*]`` is each field's
# first index in the vector, -1 when the configuration has no such field ----------------
OBS_FIELDS = ("hand", "top", "color", "direction", "phase", "pending_draw",
              "opponent_cards", "catchable", "uno_called", "draw_pile", "played", "scores",
              "side", "jump_from", "jump_resume", "multi_count", "hancock", "hand_dark",
              "opponent_backs", "draw_back", "top_other", "played_dark", "shown_hand",
              "shown_by")
(O_HAND, O_TOP, O_COLOR, O_DIRECTION, O_PHASE, O_PENDING_DRAW, O_OPPONENT_CARDS,
 O_CATCHABLE, O_UNO_CALLED, O_DRAW_PILE, O_PLAYED, O_SCORES, O_SIDE, O_JUMP_FROM,
 O_JUMP_RESUME, O_MULTI_COUNT, O_HANCOCK, O_HAND_DARK, O_OPPONENT_BACKS, O_DRAW_BACK,
 O_TOP_OTHER, O_PLAYED_DARK, O_SHOWN_HAND, O_SHOWN_BY) = range(len(OBS_FIELDS))
