"""Fairytale Games: The Battle Royale (engine name "fairytale"): the rules engine for the
publisher's rulebook (1-10 players, a card game that plays like a board game). The rules are
stated here in our words, as implemented; where the book is unclear or contradicts itself a
short quote says which sentence, and what we chose ("Decision:").

The package: cards.py (the catalog: its format, the effect verbs, the checker), core.py (the
state, traits and health, chance), world.py (Quest Mode: days, turns, the map, quests, the
bonus deck, parties, endings), battle.py (Battle Mode), effects.py (what the verbs do, and
"use"), choices.py (legal_actions), bot.py (evaluate, imagine), hidden.py (determinize: the
state as a seat may imagine it, for a search bot).

SEATS AND MODES. Seats "p1".."pN". Options: {"players": 1..10 (adventurer mode up to 6,
tournament play up to 30), "mode": "standard" | "adventurer" | "tournament", "alchemist":
bool, "quest_thresholds": "rules" | "components", "sundial": a seat (default "p1"),
"max_days": null | 1..500 (adventurer mode: 90)}. A player count out of range is refused
with a ScenarioError on "options.players" in the game's words.

THE MAP. The table's 7 x 7 cells are the map: cell [x, y], x the column and y the row, 0..6;
the Dragon Inn lies at [3, 3] from the start. The map's edge is the table's edge: a location
card is laid only on a cell of the grid, and since the box holds exactly 49 location cards
(the Dragon Inn and 48 others) the location deck runs out exactly when the grid is full.
Locations touch edge to edge: a step goes up, down, left or right (not diagonally).

SETUP. Without a setup's players the game begins in phase "choose": every seat at once
chooses a primary character from the bonus deck (`choose`), which comes with its 3 tactic
cards dormant; its health is split over the five traits as the player chooses ("traits"; by
default evenly over the trait types printed on its card), with 1 reputation. Each player
draws one bonus card into the quest hand (Decision: a character or an NPC drawn then is
shuffled back and another drawn, since neither can wait in a hand). Everyone stands on the
Dragon Inn. The epic items are set aside (face down); 30 of the event cards are dealt for the
game and the rest set aside face down. Decision: the component list counts 51 event cards
and the text says "there are 50 Event cards in the box, you will only use 30"; the catalog
holds 51 and a game uses 30. The three NPC cards are shuffled into the bonus deck ("Making
up the bonus deck, are Character Cards, ... and NPC cards"). Single player: 3 characters of
the bonus deck go face down to the side as the hunters.

THE DAY. A day is a round: "Before anyone can move, the Sundial will flip over an Event
Card" (`flip_event`, only the Sundial; the table may supply the card read). An event with a
duration holds for that many more days ("the Sundial does not flip over a new Event card if
the duration is in effect"). Its effects touch each player "at the beginning of his or her
turn" and nobody in battle (a player in battle takes no Quest Mode turn). Then the NPC phase:
every NPC with a MOVE walks that many steps over explored locations toward the nearest
landmark other than the last one it reached; single-player hunters move (below). Then each
unit of the turn order takes its turn, starting with the Sundial. When the last unit has
played, the day ends. When the Sundial must flip and the event deck is empty, the game ends:
the universal loss (Epilogue 2); in adventurer mode the discarded events are shuffled into a
new deck instead, and the game ends without a winner after "max_days" (the book gives no end:
a game must end). Decision: the book never says what the clock does when every player is in
battle; then each round of the oldest battle lets a day pass, so the event deck runs down and
the game always ends.

A TURN: first Strategy Phase, Movement Phase, Action Phase, second Strategy Phase, end. The
phase moves on with what the player does: a step enters the Movement Phase, an action-phase
action the Action Phase, a strategy play after moving or acting is in the second Strategy
Phase; `end_turn` ends the turn at any point. Poison hits at the start of the turn ("poison
hits you during your Strategy Phase, before your Movement": 1 unblockable per token).
- Strategy (`use`): character abilities (each once a turn), enabled tactic cards (used, they
  turn dormant again), items (a disposable item from the quest hand, or an equipped item's
  ability once a turn) and action cards (discarded after), each in its mode (Quest, Battle,
  any). `burn`: "Reputation points can also be BURNED or traded in for a Trait of any kind",
  never the last one, and not past the maximum health. `assist` (below).
- Movement (`step`): to a neighbouring cell, up to the movement value: the leading
  character's MVM, +1 per like character of the Wild Ones (Steady Pace), the equipment's MVM,
  a rightful owner's bonus, this turn's bonuses (an Ally Party's token: the highest MVM of all
  its characters). An unexplored neighbour is discovered: the next location card is laid
  there (the table may supply the card read) ("Every space you move towards, you will reveal
  another location card"). Entering a landmark for the first time draws a bonus card ("anyone
  who enters a Landmark Location the first time gets to draw a bonus card"); the Dragon Inn
  counts as visited from the start. An ambush location ends the movement and starts a battle
  with a minion of the player's reputation or lower, at random ("randomly select from the
  Minions that match your reputation point value or below"); the location flips when the
  battle ends. Decision: an ambush location springs on the first player to enter it while it
  is face up (revealing it is entering it, except when a hunter reveals it); while its battle
  lasts it does not spring again (a player entering may join that battle).
- Locations change: "some locations can be destroyed, changed, or even brought back to its
  original state" (verbs destroy, change, restore: the Earthquake and Stormy Seas events, the
  Restoration card). Decision: only basic locations ("Landmarks are unique"); a destroyed one
  stays on the map (no dead ends are made) but lies face down for good, "flipped":
  "destroyed": nothing to search, no ambush, until restored; a changed one is swapped for the
  top location card (the old card to the bottom of the deck), face up and unsearched.
- Searching (`search`): "you must end your movement on that location and search it": the
  search ends the movement (it may be the only thing done). The location's bonus happens,
  then it flips (exhausted), or, with green boxes, a gem goes on a box: a location with k
  boxes is searched 1 + k times, the n-th search costing n traits (the first is free: "After
  the first time, it will cost 2 traits ... 3 traits the third time"). Once a turn.
- Action: `battle` (a player on the same location, further with Hunting; an Ally Party's
  token; a hunter), `equip` (an item from the quest hand on a character of the party with a
  free slot: "Each character may equip up to 2 items"; never in battle), `unequip` (back to
  the hand; not equipped again that turn), `switch` (the leading character, once a turn:
  "your traits and health points must carry over exactly as is"), `open_quest` (at the Dragon
  Inn: any quest of a pile the reputation allows, "you may search the Quest Deck ... and
  choose", once a turn), `start_quest` (at most 1 boss quest and 2 easy or medium ones,
  "replace" discards one), `fulfil` (a quest's offering or delivery at its location),
  `challenge` (a quest's boss at its location), `interact` (an NPC on the location, once a
  turn each), `join`, `offer_alliance`, `dissolve`. Decision: the QUESTS chapter says a
  quest is opened and initiated "during your Planning Phase" while the turn's phase list puts
  "Open a Quest from the Dragon Inn" and "Initiate a Quest from your hand" in the Action
  Phase; we follow the phase list.

TRAITS ARE HEALTH. Health is the sum of the five traits (intelligence, strength, willpower,
magic, persuasion), never above the maximum: the primary character's health plus what cards
add (max health items, the tournament handicap). Costs are paid in traits: typed costs from
their trait, "any" from the traits the action's "pay" names (default: the largest first);
nobody spends their last point of health. Traits gained go where "traits" says (default: the
smallest first). Damage is lost where "lose" says (default: the largest first). Decision:
outside battle (events, poison, a spell in Quest Mode) health never drops below 1; deaths
happen in battle ("Whenever you successfully kill an enemy").

QUESTS. Three piles. Decision: the book gives two sets of thresholds, "Easy Quests (Requires
reputation of 1-3) / Medium 4-6 / Boss 7+" in the components chapter and "Easy Quests require
a reputation of 1-2 / Medium 3-4 / Boss 5+" in the QUESTS chapter; we follow the QUESTS
chapter (option "quest_thresholds": "rules", the default: it is the chapter that states the
rule, and in 30 days a player rarely reaches 7 reputation) and offer the other ("components").
A quest in the hand does nothing until initiated. A goal is one of: reach a location, search a
location (or a terrain), defeat an enemy (by id, creature type, "minion", "boss",
"character"; a count), kill characters, make an offering of traits at a location, bring items
of a kind to a location, defeat a boss at its location, or stages of these in order. Goals
met complete at once; rewards follow. A duration counts days from initiation; a quest not done
in time is discarded. Character quests: "you will get an additional bonus if you have the
character (in your party) that is listed in Blue": the `legendary` reward moves that
character's legendary item to the completer's quest hand "if it is in play and even equipped
by another player" (this is how a legendary item "may disappear from your inventory"). Boss
quests: the challenger's Ally Party members there fight the boss together; each member with
that quest under way advances it. The two End Game quests lie face up; a player opens one at
the Dragon Inn with boss-pile reputation: "Finding Safe Haven" (defeat the Evil Queen, the
Queen of Hearts and the Snow Queen, the Trinity, each at its castle, then reach the Enchanted
Forest: Epilogue 3) and "To Summon Darkness" (bring 2 epic items to the Marble Ruins, then
offer 6 magic there: the Dark Dragon, Epilogue 4). Completing one wins the game for the
completer and their Ally Party.

THE BONUS DECK. A drawn item or action card goes to the quest hand (hidden); an NPC is placed
on the drawer's location; a character waits for its drawer's decision: `recruit` ("their
Persuasion cost ... is equivalent (you don't spend them) to the minimum number of persuasion
traits you have"; at most 5 in a party), `ignore` (shuffled back) or `ambush` (a battle
against it as an automated character). A recruit's trait bonus is gained once per character
("even if this character leaves your party and rejoins later"), never above the maximum. An
empty bonus deck is made again from its discard pile, shuffled. Party characters bring their
tactic cards (dormant) and abilities, usable without switching; their item slots add up ("You
may now have access to 4 Item Slots"). Decision: items equipped on any character of the party
count in battle; a legendary item's owner bonus counts when its owner leads or fights.
Reinforced items: "a Steel Chestplate has +3 Defense and 3 green boxes"; the book's example
(a 2 ATK move absorbed, then a 5 ATK move leaving 2 to carry over) only adds up if the +3 is
the absorbing, so reinforced items absorb damage into their boxes (by the defence's "absorb",
default all they can) and break when full; other armour adds its DEF to every defence.

BATTLE (battle.py). A battle has an order of turns: the initiator first ("When you initiate a
battle against an enemy, you will be on the offensive"; ambushed, the enemy first). Against
automated enemies each player's turn pairs with the enemy's turn against that player ("the turn
order would be Hook attacks, the Troll attacks Hook, Goldilocks attacks, the Troll attacks
Goldilocks"); against an Ally Party's token: "Non-Ally Party Player attacks, Ally Party Player
1 attacks, Non-Ally Party Player attacks, Ally Party Player 2 attacks". The battle deck is
shared by all battles; each player in battle holds a hand of 5 and draws back to 5 at every
turn's start ("both players may keep any cards in their hand and draw up to 5"); an empty deck
is its discard pile shuffled. On an attack turn: `attack` (an attack card and modifier cards
"with" it: traits spent, ATK = the card + weapons (+1 per weapon per like Horror Show
character) + this turn's bonuses; a Spell has the caster's element, other attacks a weapon's),
`signature` (the fighting character's combination of cards, no traits: "You may use as many
Signature Moves as you are able to play them"), `super` (with 5 or less health, or the card's
number; once in a battle: see SUPER MOVES below), `play` (Heal: a die's worth of traits; Cure:
poison and stun; Tactic: enable a dormant tactic card; Escape; Tag Out), `use` (battle
abilities, tactics, equipped items, action cards), `flee` (only before the first play of the
turn), `truce`, `end_attack`. "If an attack is played, the defending player may play a defense
card": the battle waits for the target's `defend` (one defense card or none; its DEF, armour,
this battle's DEF bonuses; "absorb"; "lose"). Weakness +1 ATK, the same element -1. A hit that
deals any damage brings its status effects: Break (an equipped item is discarded, the
defender's "break" or the first), Bleed (the attacker's die more, unblockable), Pierce (the
best armour is ignored), Poison (a token: 1 unblockable at the start of each turn, in battle
and Quest Mode, until cured), Stun (no attack on the next attack turn), Dizzy (the hand is
discarded and 1 card drawn). Knock Back (a Rabid played by a player, or an effect): the
attacker's choice ("knock_back") of another character of the enemy's party fights on. An
automated enemy's turn is the attacked player's `enemy_turn`: a minion or boss rolls its attack
die ("roll a die and match the corresponding symbol"); an automated character flips as many
battle cards as it has trait types: attacks summed into one attack that costs it their traits
("Hook will lose 3 traits ... to deal a possible 7 damage"), a Rabid adds Poison, modifiers add
their status, Heal: a die's worth of health, Cure: statuses off and +1 health, Tactic: another
attack turn, Escape: a roll-off, winning it reshuffles the character into the bonus deck. On
the player's attack an automated enemy defends at once: a minion or boss by its defence die, a
character by flipping as many cards (the defense cards' DEF added: "If any defense cards are
revealed by the third card, add up all the defense values"). Escape against players: "a gamble
of who wants to spend the most traits": the escaper bids ("bid"), each enemy player answers
(`counter_bid`), all spend their bids, and the escape succeeds when the escaper's bid is the
highest. Against an automated enemy: a die, and "that value ... traits +1" to leave
(`pay_escape`, or `stay`: "There is no penalty for a failed Escape Card attempt"). Flee: one
die each; "If you roll higher, you may Flee Battle. If you roll less, you do not flee and
instead, end your attack phase and your enemy's first attack will be unblockable" (Decision: a
tie is not higher: the flight fails). After an escape or a flight, the enemies "may not
initiate battle with you while sharing the same location as you for 2 turns or until you move
out of that location". A player leaving a battle rejoins the turn order "after the current
player's turn", those leaving in turn one after another; several battles run at once and every
seat a battle waits for may act (`actors`). Decision: a tactic or escape card ("You may play
this at any time") is played on your own attack turn.

SUPER MOVES. "To initiate it, you must have 5 or less health"; "Think of these as desperation
moves"; "Doing these moves are like a "last ditch" effort to win or end combat"; "they will
usually require you to spend enough traits to leave you with very little health - so make it
count!". The book gives no limit to how often. Decision: a player uses a Super Move once in a
battle (whichever character it fights as). Once a turn let two bots trade supers that heal
(It's Alive!: spend 2, gain 10; Children of the Night: 6 ATK, gain 4) turn after turn and the
battle never ended (6 players, seed 284: 20,000 actions on day 1).

KILLS. A fighter at 0 health is killed. A killed player's fighting character is discarded with
its equipped items; the player "will continue as the next character in your party" (its full
health, split evenly) where it stands, or with no party `continue` as a character of the bonus
deck (searched and chosen, the deck shuffled) entering at the Dragon Inn. Decision: "any
remaining characters" are those in the bonus deck and its discards, but never the character
that has just died (it lies in the discards; continuing as it would undo the death). The
killer of a character (a player's or an automated one) scores a kill point and takes a
Victory card of the stack they choose (`take_victory`: alliance or betrayal); killing a
player is also a player kill. Victory cards stay face up and reward their requirement every
time it is met.
Decision: the book does not say what a kill brings when the two stacks are empty: the kill
counts, with no card; a kill waits for a card only while the stacks hold one more than the
kills already waiting will take (two kills in one blow with one card left: the first gets it).
Automated enemies' rewards go to the battle's owner, shared "through negotiation" with the
members of their Ally Party still in the fight (`propose_split`, `accept_split`; a split
gives each reward to one member): "you will not receive any reward from the kill unless you
were in an Ally Party". "After a Boss Quest has been won, survivors will divvy up the rewards
through negotiation. If a player does not feel comfortable with the decision, they may
initiate battle with another player to try to claim the rewards for themself." Decision: the
book gives a negotiation no end, and one must end: a seat may not propose again while its own
split stands, and proposes at most twice in one negotiation (battle.MOST_PROPOSALS); then it
accepts the split that stands or causes Conflict. A member whose own split stands and who may
not cause Conflict waits, and is not among `actors` until it has a move. `cause_conflict`:
"you may cause Conflict by dissolving from your Ally Party before rewards are distributed, and
immediately initiate battle with the Ally Party";
"Before Battle Initiates, any player who does not want to get involved may Ignore Conflict":
each other member in Quest Mode answers `face_conflict` or `ignore_conflict`, then the battle
begins against those who face it (Decision: when nobody does, the causer takes all
unopposed). The causer takes all if the party's fighters all fall or flee; otherwise the
victors "decide how to distribute the rewards (they may not take all of it themselves) within
their party. Those who did not battle may not have any objections": the victors propose (and
accept among themselves) a split over every surviving member; with more than one member and
more than one reward, a split giving everything to one victor is refused (Decision: a single
reward cannot be shared out, so the victors may keep it).

SEPARATING THE PARTY. `separate` (a strategy phase, not in an Ally Party: "You can do so at
any time during your Planningn Phase by placing a token at your location representing the
other character"): a character of the party other than the leader gets its own token where
the player stands, with its own health: "begins with max health points", split evenly over its
trait types; it carries its equipped items. "step", "search" and "battle" with "character"
act for it: its own movement (its MVM, its items, Steady Pace) each turn; "only 1 character
may search locations per turn" (Decision: a search ends the player's Movement Phase, for both
tokens); "Either character may initiate battle, or be ambushed in battle": it fights "as if
they were individual characters", with its own traits (Decision: while it fights, the player
is in battle and the main token waits). Killed, it is a character kill (not a player kill)
and the main token goes on; a dead leader with only separated characters left continues as
the first of them, where its token stands. "You will retain any faction bonus while
separated"; "You may not join an Ally Party if your party is separated". `reunite` (Action
Phase, both tokens on one location): "your primary character's health and traits will retain
the traits from the lowest character between both characters".

ALLY PARTIES. `offer_alliance` to a player on your location, `accept_alliance` or
`decline_alliance`: up to 3 players; their token goes to the Dragon Inn ("Place that character
on the Dragon Inn"); their grouped turn comes "after the last active player's turn": each
member takes its turn in seat order, and the token moves once (the members share its
movement). Decision: forming the party ends the turn of a member whose turn it was (its token
left the board). "any effect that targets the token will affect the entire party". A battle
against the token brings in every member in Quest Mode. `dissolve`: the leaver's own token
goes down where the party stands and its turn comes after the last active player's.

ASSIST AND JOIN. `assist` (in a strategy phase, on the battle's location: "you may choose to
Assist by stating your intention during your Planning Phase"; Decision: one statement a turn,
so a player cannot hop between battles without end): the assistant's
strategy plays may then target anyone in that battle, a minion or boss included, and `give`
passes an item to a player in battle (equipped at once) or from battle to the assistant.
`join` (Action Phase, on the location): the joiner's turn "will follow the last offensive
character", with 5 cards; "the automated enemy will ALWAYS attack players".

FACTIONS (counted over the party, and the whole Ally Party's; the team bonus counts 2-4 like
characters, "up to 4"; the faction bonus is all five; both combinations count): the Wild Ones
+1 MVM each, all five: an Escape card always succeeds; the Horror Show +1 ATK per weapon each,
all five: Die Again ("Whenever you would roll a die, you may ignore it and roll
again": `reroll` or `accept_roll`, once for each die, on a failed flight's die, an automated
enemy's attack die, the die pricing an escape from an automated enemy, and inside plays: a
minion's or boss's defence die against your attack, your Bleed's die (on an automated enemy,
or after a player's defence) and your Heal card's die; the battle waits for the roller's
answer before the play goes on; a die the play rolls after it comes with that answer's
"dice"); the Dark Ones
`sacrifice` an ally for 2 health each, all five: `mind_shift` (before the first attack,
rearrange an enemy player's traits);
the Merceneries: initiate battle up to 1 space away each ("for each like Faction Ally",
counted like the others), all five: `hostage` (an enemy's ally out of their use until they
`ransom` it for 10 traits; unpaid, it is shuffled into the bonus deck when the battle ends);
Children of Magic: 1 less magic each for quests' offerings and items, all five: play action
cards from the bonus discard pile ("Spellcaster": `use` names the card there); the Fugitives:
Rummage (a drawn bonus card may be shuffled back and another drawn: `keep` or `rummage`), all
five: `distraction` (3 traits: enable a tactic card).

WINNING AND LOSING. Single player: the hunters are revealed one by one on the Dragon Inn at the
2nd, 4th and 6th landmark discovered; each moves 3 toward the player by the shortest path over
the whole grid ("if their closest path requires them to flip over Location Cards, they will do
so") in the NPC phase, and ambushes the player on reaching them (or when the player steps onto
it); a hunter that escapes stays on the map. Kill all three before the events run out.
2-4 players: "kill 3 players and 2 characters (they may be a player as well)": 3 player kills
and 5 kills in all. 5-10 players: "kill 2 characters and be the last one standing"; once a
player has 2 kills "all deaths are final" (the player is out). Tournament play: one character
each (no recruiting; a death is final), waves of 10 entering when all of the last wave have
moved off the Dragon Inn (the second +5 traits, the third +5 traits and a bonus card), the
last standing wins. Adventurer mode: all players are one party from the start, draw 2 bonus
cards at the start of each turn, never recruit, and win only by an End Game quest. Any mode:
completing an End Game quest wins; when every player is out, everyone loses. "result" and
events name the epilogue (1: the Battle Royale won; 2: everyone loses; 3 and 4: the End Game
quests).

CHANCE. Every draw and die may be supplied by the table: an action's "cards" (the ids read, in
the order the rules draw them: a location discovered, a bonus card, an event, battle cards an
automated enemy flips, an ambushing minion) and "dice" (the dice thrown, 1..6, in the order the
rules roll them); whatever is not supplied the engine draws from its shuffled decks and rolls
with its PRNG. A supplied card must be in the deck drawn from; supplied dice or cards left
unused refuse the action.

ACTIONS (JSON; every action names its "seat" and may carry "dice" and "cards"; one example of
each):
  {"type": "choose", "seat": "p1", "character": "captain_hook", "traits": {"persuasion": 7,
      "intelligence": 7, "strength": 6}}
  {"type": "flip_event", "seat": "p1", "cards": ["harvest_moon"]}
  {"type": "step", "seat": "p1", "to": [3, 2], "cards": ["emerald_city"]}
  {"type": "step", "seat": "p1", "to": [2, 3], "character": "peter_pan"} (a separated one)
  {"type": "separate", "seat": "p1", "character": "peter_pan"}
  {"type": "reunite", "seat": "p1", "character": "peter_pan"}
  {"type": "search", "seat": "p1", "pay": {"strength": 2}}
  {"type": "end_turn", "seat": "p1"}
  {"type": "equip", "seat": "p1", "item": "steel_sword", "character": "captain_hook"}
  {"type": "unequip", "seat": "p1", "item": "steel_sword"}
  {"type": "switch", "seat": "p1", "character": "robin_hood"}
  {"type": "burn", "seat": "p1", "trait": "magic"}
  {"type": "open_quest", "seat": "p1", "quest": "lost_lamb"}
  {"type": "start_quest", "seat": "p1", "quest": "lost_lamb", "replace": "old_ruins"}
  {"type": "fulfil", "seat": "p1", "quest": "pilgrimage"}
  {"type": "challenge", "seat": "p1", "quest": "fee_fi_fo_fum", "dice": [4]}
  {"type": "battle", "seat": "p1", "target": "p2"}
  {"type": "join", "seat": "p3", "battle": 4}
  {"type": "assist", "seat": "p3", "battle": 4}
  {"type": "interact", "seat": "p1", "npc": "the_white_rabbit"}
  {"type": "use", "seat": "p1", "card": "fireball", "target": "p2"}
  {"type": "give", "seat": "p3", "item": "steel_sword", "to": "p1"}
  {"type": "sacrifice", "seat": "p1", "character": "bastinda"}
  {"type": "distraction", "seat": "p1", "tactic": "red_cloak"}
  {"type": "offer_alliance", "seat": "p1", "to": "p2"}
  {"type": "accept_alliance", "seat": "p2"}, {"type": "decline_alliance", "seat": "p2"}
  {"type": "dissolve", "seat": "p2"}
  {"type": "recruit", "seat": "p1"}, {"type": "ignore", "seat": "p1"},
  {"type": "ambush", "seat": "p1"}
  {"type": "keep", "seat": "p1"}, {"type": "rummage", "seat": "p1"}
  {"type": "keep_on_top", "seat": "p1"}, {"type": "to_bottom", "seat": "p1"}
  {"type": "take_victory", "seat": "p1", "deck": "betrayal"}
  {"type": "continue", "seat": "p1", "character": "snow"}
  {"type": "attack", "seat": "p1", "card": "heavy_2", "with": ["venom_1"], "target": "p2"}
  {"type": "signature", "seat": "p1", "move": 1, "target": "e1"}
  {"type": "super", "seat": "p1", "target": "e1"}
  {"type": "play", "seat": "p1", "card": "escape_1", "bid": 2}
  {"type": "flee", "seat": "p1", "dice": [5, 2]}
  {"type": "end_attack", "seat": "p1"}
  {"type": "truce", "seat": "p1"}
  {"type": "defend", "seat": "p2", "card": "block_3", "absorb": {"steel_chestplate": 2},
      "lose": {"strength": 1}}
  {"type": "enemy_turn", "seat": "p1", "dice": [6]}
  {"type": "counter_bid", "seat": "p2", "bid": 3}
  {"type": "pay_escape", "seat": "p1"}, {"type": "stay", "seat": "p1"}
  {"type": "reroll", "seat": "p1"}, {"type": "accept_roll", "seat": "p1"}
  {"type": "mind_shift", "seat": "p1", "target": "p2", "traits": {"persuasion": 18}}
  {"type": "hostage", "seat": "p1", "target": "p2", "character": "snow"}
  {"type": "ransom", "seat": "p2"}
  {"type": "propose_split", "seat": "p1", "split": ["p1", "p2", "p2"]}
  {"type": "accept_split", "seat": "p2"}, {"type": "cause_conflict", "seat": "p2"}
  {"type": "face_conflict", "seat": "p3"}, {"type": "ignore_conflict", "seat": "p3"}
A `use` takes the fields its card needs: "target" (a player on your location, a fighter of
your battle or the one you assist), "traits" (where gains go), "pay", "tactic" (to enable),
"item" (to equip), "cell" (a landmark to move to), "swap" ([from, to] traits),
"character", "knock_back".

SETUP (scenarios; every field optional, "players" needed for the rest): {"players": [{"seat",
"character", "party": [more characters], "traits", "reputation", "cell", "hand": [items,
action cards, quests], "equipped": {character: [items]}, "boxes": {item: damage absorbed},
"quests": [under way], "victory", "kills": {"players", "characters"}, "poison", "tactics":
[enabled], "tokens": {"heal", "cure"}, "max_bonus"}], "map": [{"cell", "location",
"searched", "flipped"}], "decks": {deck: [ids, top first]} (a deck named replaces its
default; the others lose the cards placed), "day", "event" (face up; without it the Sundial
flips first), "event_hold", "turn" (a seat), "phase" (its turn phase), "npcs": [{"id",
"cell"}], "hunters": [{"id", "cell" (revealed) or none (face down), "health"}],
"landmarks"}. Decks: alliance, battle, battle_discard, betrayal, boss, bonus,
bonus_discard, easy, end, epic, event_discard, events, events_out, locations, medium,
quest_discard. A scenario's "cards" defines cards inline in the catalog's format, each row
naming its "deck" (characters, tactics, events, locations, bonus, npcs, battle, enemies,
quests, victory): a known id replaces that card, a new one is added.

HIDDEN INFORMATION. view(state, seat) shows the table: the map, boards, equipped items,
quests under way, victory cards, battles (hand sizes), face-up piles, the deck sizes, and the
seat's own quest hand, battle hand and decisions; never another's hand or decision, a face-down
deck's order or content, or a hunter still face down. A spectator (None) sees only the table.
result() is the referee's record with everything. Undo: an action that drew a card or rolled a
die cannot be undone (its events end with "chance_taken").

THE CATALOG: see cards.py (format, verbs, checker) and shared_rules/data/fairytale_*.json. Of
about 500 authored cards and abilities, 7 use a Python hook (cards.HOOKS: a peek at the bonus
deck, a swap of traits, a vanishing move); all others are built from the verbs.

NOT IMPLEMENTED: Die Again on a die rolled inside a card effect (a verb's "n": "die", and the
attacks that effects make: signature and super moves, an assistant's plays), resolved at once
in the middle of the effect's steps, so there is no moment to offer the reroll (no authored
card rolls one); an automated enemy's own dice (its Heal, its Escape) are not the player's.
Other players initiating battle against a
separated character's token (the book gives no way to name it; it may still be ambushed).
"""

from shared_rules import canon
from shared_rules import prng
from shared_rules.errors import IllegalAction, ScenarioError, check_action_shape, shown
from shared_rules.fairytale import battle
from shared_rules.fairytale import cards
from shared_rules.fairytale import core
from shared_rules.fairytale import effects
from shared_rules.fairytale import world
from shared_rules.fairytale.core import fail
from shared_rules.games import copy, seats, status, winner  # noqa: F401 (the contract)

NAME = "fairytale"
INFO = {"title": "Fairytale Games: The Battle Royale", "min_players": 1, "max_players": 30,
        "default_players": 2,
        "modes": {"mode": ["standard", "adventurer", "tournament"], "alchemist": [False, True],
                  "quest_thresholds": ["rules", "components"]},
        "mode_titles": {"standard": "the Battle Royale", "adventurer": "Adventurer mode",
                        "tournament": "Tournament play"},
        "option_titles": {"alchemist": "Alchemist mode (potions as tokens)",
                          "quest_thresholds": "Quest piles by the reputation list of the "
                                              "book's"},
        "chance": True, "hidden": True}
MODES = ("standard", "adventurer", "tournament")
MAX_PLAYERS = {"standard": 10, "adventurer": 6, "tournament": 30}
OPTION_FIELDS = ("alchemist", "max_days", "mode", "players", "quest_thresholds", "sundial")
SETUP_FIELDS = ("day", "decks", "event", "event_hold", "hunters", "landmarks", "map", "npcs",
                "phase", "players", "turn")
SETUP_PLAYER_FIELDS = ("cell", "character", "equipped", "hand", "kills", "party", "poison",
                       "quests", "reputation", "seat", "tactics", "tokens", "traits", "victory",
                       "boxes", "max_bonus")

_C = ("seat", "dice", "cards")
ACTION_FIELDS = {
    "choose": _C + ("character", "traits"),
    "flip_event": _C,
    "step": _C + ("to", "character"),
    "search": _C + ("pay", "traits", "tactic", "character"),
    "end_turn": _C,
    "equip": _C + ("item", "character"),
    "unequip": _C + ("item",),
    "switch": _C + ("character",),
    "burn": _C + ("trait",),
    "open_quest": _C + ("quest",),
    "start_quest": _C + ("quest", "replace"),
    "fulfil": _C + ("quest", "pay"),
    "challenge": _C + ("quest",),
    "battle": _C + ("target", "character"),
    "separate": _C + ("character",),
    "reunite": _C + ("character",),
    "join": _C + ("battle",),
    "assist": _C + ("battle",),
    "interact": _C + ("npc", "pay", "traits", "tactic"),
    "use": _C + ("card", "target", "traits", "pay", "tactic", "item", "cell", "character",
                 "swap", "knock_back"),
    "give": _C + ("item", "to"),
    "sacrifice": _C + ("character",),
    "distraction": _C + ("tactic", "pay"),
    "offer_alliance": _C + ("to",),
    "accept_alliance": _C,
    "decline_alliance": _C,
    "dissolve": _C,
    "recruit": _C,
    "ignore": _C,
    "ambush": _C,
    "keep": _C,
    "rummage": _C,
    "keep_on_top": _C,
    "to_bottom": _C,
    "take_victory": _C + ("deck",),
    "continue": _C + ("character", "traits"),
    "attack": _C + ("card", "with", "target", "pay", "knock_back"),
    "signature": _C + ("move", "target", "knock_back", "character", "traits", "tactic"),
    "super": _C + ("target", "pay", "traits", "knock_back"),
    "play": _C + ("card", "traits", "tactic", "character", "bid"),
    "flee": _C,
    "end_attack": _C,
    "truce": _C,
    "defend": _C + ("card", "absorb", "lose", "break"),
    "enemy_turn": _C,
    "counter_bid": _C + ("bid",),
    "pay_escape": _C + ("pay",),
    "stay": _C,
    "reroll": _C,
    "accept_roll": _C,
    "mind_shift": _C + ("target", "traits"),
    "hostage": _C + ("target", "character"),
    "ransom": _C + ("pay",),
    "propose_split": _C + ("split",),
    "accept_split": _C,
    "cause_conflict": _C,
    "face_conflict": _C,
    "ignore_conflict": _C,
}


# ---------------------------------------------------------------- options and setup

def _parse_options(options):
    if not isinstance(options, dict):
        raise ScenarioError("options", "must be an object")
    for key in sorted(options):
        if key not in OPTION_FIELDS:
            raise ScenarioError("options." + key, "unknown option (options: %s)" %
                                ", ".join(OPTION_FIELDS))
    mode = options.get("mode", "standard")
    if mode not in MODES:
        raise ScenarioError("options.mode", "must be one of %s, not %s" % (
            ", ".join(MODES), shown(mode)))
    n = options.get("players", INFO["default_players"])
    top = MAX_PLAYERS[mode]
    if not core.is_int(n) or n < 1 or n > top:
        raise ScenarioError("options.players", "The Battle Royale is for 1 to 10 players (up "
                            "to 6 adventurers, up to 30 in tournament play); %s is not a "
                            "player count for the %s mode" % (shown(n), mode))
    alch = options.get("alchemist", False)
    if alch is not True and alch is not False:
        raise ScenarioError("options.alchemist", "must be true or false")
    th = options.get("quest_thresholds", "rules")
    if th not in world.THRESHOLDS:
        raise ScenarioError("options.quest_thresholds", "must be rules or components, not %s" %
                            shown(th))
    seat_list = ["p%d" % (i + 1) for i in range(n)]
    sundial = options.get("sundial", "p1")
    if sundial not in seat_list:
        raise ScenarioError("options.sundial", "must be a seat of the game (p1 to p%d), not %s"
                            % (n, shown(sundial)))
    md = options.get("max_days", 90 if mode == "adventurer" else None)
    if md is not None and (not core.is_int(md) or md < 1 or md > 500):
        raise ScenarioError("options.max_days", "must be null or a whole number from 1 to 500")
    return {"mode": mode, "players": n, "alchemist": alch, "quest_thresholds": th,
            "sundial": sundial, "max_days": md}, seat_list


def new_game(options, seed, setup=None, cards_=None):
    """A new game; ScenarioError names the bad field. Without a setup's players everybody
    chooses a character first (phase "choose")."""
    if not core.is_int(seed):
        raise ScenarioError("seed", "must be an integer")
    cat = cards.load_catalog(cards_)
    opts, seat_list = _parse_options(options if options is not None else {})
    s = core.FairytaleState()
    s.options = opts
    s.seed = seed
    s.extra_cards = cards_
    s.cat = cat
    s.seats = seat_list
    s.supply = None
    s.rng = prng.seed_state(seed)
    s.phase = "choose"
    s.day = 0
    s.clock = None
    s.event = None
    s.event_hold = 0
    s.sundial = opts["sundial"]
    s.order = []
    s.cur = None
    s.member = 0
    s.turn = None
    s.players = dict([(q, core.new_player(q)) for q in seat_list])
    s.cells = [None] * core.NCELLS
    s.cells[core.CENTRE] = cards.DRAGON_INN
    s.searched = [0] * core.NCELLS
    s.flipped = [False] * core.NCELLS
    s.npcs = []
    s.hunters = []
    s.landmarks = 0
    s.battles = []
    s.next_id = 1
    s.allies = {}
    s.pending = []
    s.status = "ongoing"
    s.winner = None
    s.winners = []
    s.end_reason = None
    s.epilogue = None
    s.final_deaths = False
    s.wave = 1
    s.log_day = 0
    if opts["mode"] == "tournament":
        for i, q in enumerate(seat_list):
            s.players[q]["entered"] = i < 10
    if setup is not None and not isinstance(setup, dict):
        raise ScenarioError("setup", "must be an object")
    setup = setup or {}
    for key in sorted(setup):
        if key not in SETUP_FIELDS:
            raise ScenarioError("setup." + key, "unknown field (setup takes %s)" %
                                ", ".join(SETUP_FIELDS))
    used = _setup_used(s, setup)
    _default_decks(s, used, setup.get("decks"))
    if setup.get("players") is not None:
        _setup_players(s, setup)
        _setup_world(s, setup)
    elif set(setup) - set(["decks"]):
        raise ScenarioError("setup", "a setup that places things needs its \"players\"")
    return s


def _ids(v, where):
    if not isinstance(v, list) or len(v) > 200:
        raise ScenarioError(where, "must be a list of card ids")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise ScenarioError("%s[%d]" % (where, i), "must be a card id")
    return v


def _setup_used(s, setup):
    """Every card the setup puts somewhere: {id: where}, so the default decks leave them out
    (a card is in one place only)."""
    used = {}

    def put(cid, where):
        if cid in used:
            raise ScenarioError(where, "%s is already placed at %s" % (shown(cid), used[cid]))
        used[cid] = where
    rows = setup.get("players")
    if rows is not None:
        if not isinstance(rows, list) or not rows or len(rows) > len(s.seats):
            raise ScenarioError("setup.players", "must be a list of 1 to %d players" %
                                len(s.seats))
        for i, row in enumerate(rows):
            w = "setup.players[%d]" % i
            if not isinstance(row, dict):
                raise ScenarioError(w, "must be an object")
            for key in sorted(row):
                if key not in SETUP_PLAYER_FIELDS:
                    raise ScenarioError(w + "." + key, "unknown field (a player takes %s)" %
                                        ", ".join(SETUP_PLAYER_FIELDS))
            c = row.get("character")
            if c not in s.cat.decks["characters"]:
                raise ScenarioError(w + ".character", "must be a character, not %s" % shown(c))
            put(c, w + ".character")
            for j, x in enumerate(_ids(row.get("party", []), w + ".party")):
                put(x, "%s.party[%d]" % (w, j))
            for j, x in enumerate(_ids(row.get("hand", []), w + ".hand")):
                put(x, "%s.hand[%d]" % (w, j))
            eq = row.get("equipped", {})
            if not isinstance(eq, dict):
                raise ScenarioError(w + ".equipped", "must be an object: character -> items")
            for k in sorted(eq):
                for j, x in enumerate(_ids(eq[k], "%s.equipped.%s" % (w, k))):
                    put(x, "%s.equipped.%s[%d]" % (w, k, j))
            for key in ("quests", "victory"):
                for j, x in enumerate(_ids(row.get(key, []), w + "." + key)):
                    put(x, "%s.%s[%d]" % (w, key, j))
    for i, row in enumerate(setup.get("map") or []):
        if isinstance(row, dict) and isinstance(row.get("location"), str):
            put(row["location"], "setup.map[%d].location" % i)
    for i, row in enumerate(setup.get("npcs") or []):
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            put(row["id"], "setup.npcs[%d].id" % i)
    for i, row in enumerate(setup.get("hunters") or []):
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            put(row["id"], "setup.hunters[%d].id" % i)
    if isinstance(setup.get("event"), str):
        put(setup["event"], "setup.event")
    return used


def _default_decks(s, used, given):
    """The decks: the catalog's cards shuffled by the seed (the epic items set aside, 30 of the
    event cards used), less what the setup placed; a deck the setup names replaces its
    default (top first)."""
    cat = s.cat
    d = {}
    for name in world.DECK_NAMES:
        d[name] = []
    d["bonus"] = [c for c in cat.order["characters"]] + [
        c for c in cat.order["bonus"] if cat.decks["bonus"][c]["kind"] != "epic"] + list(
        cat.order["npcs"])
    d["epic"] = list(cat.epics)
    d["battle"] = list(cat.battle_deck)
    d["locations"] = [c for c in cat.order["locations"] if c != cards.DRAGON_INN]
    d["events"] = list(cat.order["events"])
    for pile in ("easy", "medium", "boss", "end"):
        d[pile] = [q for q in cat.order["quests"] if cat.decks["quests"][q]["pile"] == pile]
    for v in ("alliance", "betrayal"):
        d[v] = [c for c in cat.order["victory"] if cat.decks["victory"][c]["deck"] == v]
    for name in ("bonus", "epic", "battle", "locations", "events", "easy", "medium", "boss",
                 "alliance", "betrayal"):
        d[name] = [c for c in d[name] if c not in used]
        s.rng = prng.shuffle(s.rng, d[name])
    d["events_out"] = d["events"][cards.EVENTS_PER_GAME:]
    d["events"] = d["events"][:cards.EVENTS_PER_GAME]
    if given is not None:
        if not isinstance(given, dict):
            raise ScenarioError("setup.decks", "must be an object: deck name -> card ids")
        placed = {}
        for name in sorted(given):
            if name not in world.DECK_NAMES:
                raise ScenarioError("setup.decks." + name, "unknown deck (decks: %s)" %
                                    ", ".join(world.DECK_NAMES))
            ids = _ids(given[name], "setup.decks." + name)
            for j, x in enumerate(ids):
                w = "setup.decks.%s[%d]" % (name, j)
                if not _belongs(s, name, x):
                    raise ScenarioError(w, "%s cannot be in the %s deck" % (shown(x), name))
                if x in used or x in placed:
                    raise ScenarioError(w, "%s is already placed at %s" % (
                        shown(x), used.get(x) or placed[x]))
                placed[x] = w
            d[name] = list(ids)
        for name in world.DECK_NAMES:
            if name not in given:
                d[name] = [c for c in d[name] if c not in placed]
    s.decks = d


def _belongs(s, deck, cid):
    cat = s.cat
    if deck in ("bonus", "bonus_discard"):
        return cid in cat.decks["characters"] or cid in cat.decks["npcs"] or (
            cid in cat.decks["bonus"])
    if deck == "epic":
        return cid in cat.decks["bonus"] and cat.decks["bonus"][cid]["kind"] == "epic"
    if deck in ("battle", "battle_discard"):
        return cid in cat.battle_instances
    if deck == "locations":
        return cid in cat.decks["locations"] and cid != cards.DRAGON_INN
    if deck in ("events", "events_out", "event_discard"):
        return cid in cat.decks["events"]
    if deck in ("easy", "medium", "boss", "end"):
        return cid in cat.decks["quests"] and cat.decks["quests"][cid]["pile"] == deck
    if deck == "quest_discard":
        return cid in cat.decks["quests"]
    return cid in cat.decks["victory"] and cat.decks["victory"][cid]["deck"] == deck


def _cell(v, where):
    if not core.is_xy(v):
        raise ScenarioError(where, "must be a cell [x, y] with x and y from 0 to 6, not %s" %
                            shown(v))
    return core.index(v)


def _int(row, key, where, lo, hi, default):
    v = row.get(key, default)
    if not core.is_int(v) or v < lo or v > hi:
        raise ScenarioError(where + "." + key, "must be a whole number from %d to %d, not %s" %
                            (lo, hi, shown(v)))
    return v


def _setup_players(s, setup):
    rows = setup["players"]
    seen = set()
    for i, row in enumerate(rows):
        w = "setup.players[%d]" % i
        q = row.get("seat", s.seats[i])
        if q not in s.seats or q in seen:
            raise ScenarioError(w + ".seat", "must be a seat of the game not named twice, not "
                                "%s" % shown(q))
        seen.add(q)
        p = s.players[q]
        c = row["character"]
        p["character"] = c
        p["active"] = c
        p["party"] = [c]
        for j, x in enumerate(row.get("party", [])):
            if x not in s.cat.decks["characters"]:
                raise ScenarioError("%s.party[%d]" % (w, j), "must be a character, not %s" %
                                    shown(x))
            p["party"].append(x)
        if len(p["party"]) > core.MAX_PARTY:
            raise ScenarioError(w + ".party", "a party has at most 5 characters")
        p["bonus_taken"] = list(p["party"])
        p["equipped"] = dict([(x, []) for x in p["party"]])
        for x in p["party"]:
            for t in core.char(s, x)["tactics"]:
                p["tactics"][t] = False
        p["reputation"] = _int(row, "reputation", w, 1, 30, 1)
        p["max_bonus"] = _int(row, "max_bonus", w, 0, 30, 0)
        p["poison"] = _int(row, "poison", w, 0, 20, 0)
        p["cell"] = _cell(row.get("cell", [3, 3]), w + ".cell")
        for j, x in enumerate(row.get("hand", [])):
            if x not in s.cat.decks["quests"] and (x not in s.cat.decks["bonus"]):
                raise ScenarioError("%s.hand[%d]" % (w, j), "must be an item, an action card or "
                                    "a quest, not %s" % shown(x))
            p["hand"].append(x)
        eq = row.get("equipped", {})
        for k in sorted(eq):
            if k not in p["party"]:
                raise ScenarioError("%s.equipped.%s" % (w, k), "is not in the party")
            for j, x in enumerate(eq[k]):
                if x not in s.cat.decks["bonus"] or core.item(s, x)["kind"] == "action":
                    raise ScenarioError("%s.equipped.%s[%d]" % (w, k, j), "must be an item, "
                                        "not %s" % shown(x))
                p["equipped"][k].append(x)
                if core.item(s, x)["boxes"]:
                    p["boxes"][x] = 0
            if len(p["equipped"][k]) > core.char(s, k)["slots"]:
                raise ScenarioError("%s.equipped.%s" % (w, k), "has more items than slots")
        boxes = row.get("boxes", {})
        if not isinstance(boxes, dict):
            raise ScenarioError(w + ".boxes", "must be an object: item -> damage absorbed")
        for k in sorted(boxes):
            if k not in p["boxes"] or not core.is_int(boxes[k]) or not \
                    0 <= boxes[k] < core.item(s, k)["boxes"]:
                raise ScenarioError("%s.boxes.%s" % (w, k), "must be the damage an equipped "
                                    "reinforced item has absorbed, below its boxes")
            p["boxes"][k] = boxes[k]
        for j, x in enumerate(row.get("quests", [])):
            if x not in s.cat.decks["quests"]:
                raise ScenarioError("%s.quests[%d]" % (w, j), "must be a quest, not %s" %
                                    shown(x))
            p["quests"].append(x)
            q_ = s.cat.decks["quests"][x]
            p["progress"][x] = {"stage": 0, "count": 0,
                                "until": q_["duration"] + 1 if q_["duration"] else 0}
        for cls in ("basic", "boss"):
            if len([x for x in p["quests"] if world.quest_class(s.cat.decks["quests"][x]) ==
                    cls]) > core.QUEST_SLOTS[cls]:
                raise ScenarioError(w + ".quests", "too many %s quests under way" % cls)
        for j, x in enumerate(row.get("victory", [])):
            if x not in s.cat.decks["victory"]:
                raise ScenarioError("%s.victory[%d]" % (w, j), "must be a victory card, not %s"
                                    % shown(x))
            p["victory"].append(x)
        kills = row.get("kills", {})
        if not isinstance(kills, dict):
            raise ScenarioError(w + ".kills", "must be an object {players, characters}")
        p["kills"] = {"players": _int(kills, "players", w + ".kills", 0, 99, 0),
                      "characters": _int(kills, "characters", w + ".kills", 0, 99, 0)}
        tac = _ids(row.get("tactics", []), w + ".tactics")
        for j, t in enumerate(tac):
            if t not in p["tactics"]:
                raise ScenarioError("%s.tactics[%d]" % (w, j), "must be a tactic of the party, "
                                    "not %s" % shown(t))
            p["tactics"][t] = True
        tok = row.get("tokens", {})
        if not isinstance(tok, dict):
            raise ScenarioError(w + ".tokens", "must be an object {heal, cure}")
        p["tokens"] = {"heal": _int(tok, "heal", w + ".tokens", 0, 20, 0),
                       "cure": _int(tok, "cure", w + ".tokens", 0, 20, 0)}
        full = core.max_health(s, p)
        if row.get("traits") is None:
            p["traits"] = core.split_even(full, core.char(s, c)["traits"])
        else:
            tr = row["traits"]
            if not isinstance(tr, dict):
                raise ScenarioError(w + ".traits", "must be an object of traits")
            for k in sorted(tr):
                if k not in core.TRAITS or not core.is_int(tr[k]) or tr[k] < 0:
                    raise ScenarioError(w + ".traits." + k, "must be a trait with a whole "
                                        "number of points")
            p["traits"] = dict([(t, tr.get(t, 0)) for t in core.TRAITS])
            h = core.health(p["traits"])
            if h < 1 or h > full:
                raise ScenarioError(w + ".traits", "health %d must be from 1 to the maximum %d"
                                    % (h, full))
        p["visited"] = [core.CENTRE]
    for q in s.seats:
        if q not in seen:
            raise ScenarioError("setup.players", "every seat needs a player (%s is missing)" %
                                q)


def _setup_world(s, setup):
    for i, row in enumerate(setup.get("map") or []):
        w = "setup.map[%d]" % i
        if not isinstance(row, dict):
            raise ScenarioError(w, "must be an object {cell, location, searched?, flipped?}")
        c = _cell(row.get("cell"), w + ".cell")
        lid = row.get("location")
        if lid not in s.cat.decks["locations"] or lid == cards.DRAGON_INN:
            raise ScenarioError(w + ".location", "must be a location card, not %s" % shown(lid))
        if s.cells[c] is not None:
            raise ScenarioError(w + ".cell", "holds a location already")
        s.cells[c] = lid
        s.searched[c] = _int(row, "searched", w, 0, 9, 0)
        fl = row.get("flipped", False)
        if fl is not True and fl is not False and fl != "destroyed":
            raise ScenarioError(w + ".flipped", "must be true, false or \"destroyed\"")
        s.flipped[c] = fl
        if s.cat.decks["locations"][lid]["kind"] == "landmark":
            s.landmarks += 1
    s.landmarks = _int(setup, "landmarks", "setup", 0, 49, s.landmarks)
    for q in s.seats:
        if s.cells[s.players[q]["cell"]] is None:
            raise ScenarioError("setup.players", "%s stands on an unexplored cell" % q)
    for i, row in enumerate(setup.get("npcs") or []):
        w = "setup.npcs[%d]" % i
        if not isinstance(row, dict) or row.get("id") not in s.cat.decks["npcs"]:
            raise ScenarioError(w, "must be {id: an NPC, cell}")
        s.npcs.append({"id": row["id"], "cell": _cell(row.get("cell"), w + ".cell"),
                       "last": -1})
    for i, row in enumerate(setup.get("hunters") or []):
        w = "setup.hunters[%d]" % i
        if not isinstance(row, dict) or row.get("id") not in s.cat.decks["characters"]:
            raise ScenarioError(w, "must be {id: a character, cell?, health?}")
        if len(s.seats) != 1 or s.options["mode"] != "standard":
            raise ScenarioError(w, "hunters come only in a single player game")
        cell = row.get("cell")
        h = {"id": row["id"], "state": "hidden", "cell": -1, "battle": False,
             "health": _int(row, "health", w, 1, 40, core.char(s, row["id"])["health"])}
        if cell is not None:
            h["state"] = "hunting"
            h["cell"] = _cell(cell, w + ".cell")
        s.hunters.append(h)
    if len(s.seats) == 1 and s.options["mode"] == "standard" and not s.hunters:
        _draw_hunters(s)
    s.day = _int(setup, "day", "setup", 0, 200, 0)
    # 5-10 players: a setup where somebody has killed 2 characters already has final deaths.
    s.final_deaths = len(s.seats) >= 5 and s.options["mode"] == "standard" and bool(
        [q for q in s.seats if s.players[q]["kills"]["characters"] >= 2])
    s.phase = "play"
    ev = setup.get("event")
    s.order = [q for q in world.clockwise(s, s.sundial) if s.players[q]["entered"]]
    world.adventurers(s, [])
    if ev is None:
        world.begin_day(s, [])
        return
    if ev not in s.cat.decks["events"]:
        raise ScenarioError("setup.event", "must be an event card, not %s" % shown(ev))
    s.event = ev
    s.event_hold = _int(setup, "event_hold", "setup", 0, 3, s.cat.decks["events"][ev]["duration"])
    s.day = max(1, s.day)
    t = setup.get("turn", world.unit_members(s, s.order[0])[0] if s.order else None)
    if not isinstance(t, str) or t not in s.players or world.unit_of(s, t) not in s.order:
        raise ScenarioError("setup.turn", "must be a seat in the turn order, not %s" % shown(t))
    s.cur = s.order.index(world.unit_of(s, t))
    s.member = world.unit_members(s, s.order[s.cur]).index(t)
    world.start_turn(s, [])
    ph = setup.get("phase", "strategy1")
    if ph not in world.PHASES:
        raise ScenarioError("setup.phase", "must be one of %s" % ", ".join(world.PHASES))
    if s.turn is not None:
        s.turn["phase"] = ph


def _draw_hunters(s):
    """Single player: "pull 3 characters from the Bonus Card stack and put them randomly faced
    down on a stack to the side"."""
    chars = [c for c in s.decks["bonus"] if c in s.cat.decks["characters"]][:3]
    for c in chars:
        s.decks["bonus"].remove(c)
        s.hunters.append({"id": c, "state": "hidden", "cell": -1, "battle": False,
                          "health": core.char(s, c)["health"]})


# ---------------------------------------------------------------- choosing characters

def _choose(s, action, events):
    """Setup: a primary character from the bonus deck with its 3 dormant tactic cards, its
    health split over the traits as the player chooses, 1 reputation, one bonus card."""
    seat = action["seat"]
    if s.phase != "choose":
        fail("chosen", "Characters are chosen before the game begins.")
    p = s.players[seat]
    if p["character"] is not None:
        fail("chosen", "You have chosen %s already." % core.name_of(s, p["character"]))
    c = action.get("character")
    if c not in s.cat.decks["characters"] or c not in s.decks["bonus"]:
        fail("not_available", "character must be a character not chosen yet, not %s." %
             shown(c))
    card = core.char(s, c)
    if action.get("traits") is None:
        traits = core.split_even(card["health"], card["traits"])
    else:
        traits = world._starting_traits(s, c, action["traits"], "traits")
    s.decks["bonus"].remove(c)
    p["character"] = c
    p["active"] = c
    p["party"] = [c]
    p["equipped"] = {c: []}
    p["traits"] = traits
    p["bonus_taken"] = [c]
    p["visited"] = [core.CENTRE]
    for t in card["tactics"]:
        p["tactics"][t] = False
    core.log(events, "chosen", seat=seat, character=c, traits=dict(traits),
             text="Player %s plays %s." % (seat[1:], card["name"]))
    # The setup's bonus card goes into the quest hand: a character or an NPC cannot wait in a
    # hand, so it is shuffled back and another is drawn.
    for _ in range(20):
        b = core.draw(s, "bonus", "bonus deck")
        if b is None:
            break
        if b in s.cat.decks["characters"] or b in s.cat.decks["npcs"]:
            core.shuffle_in(s, "bonus", b)
            continue
        p["hand"].append(b)
        break
    if all([s.players[q]["character"] is not None for q in s.seats]):
        if len(s.seats) == 1 and s.options["mode"] == "standard":
            _draw_hunters(s)
        world.start_play(s, events)


# ---------------------------------------------------------------- apply

HANDLERS = {
    "flip_event": world.flip_event, "step": lambda s, a, ev: _maybe_away(
        s, a, ev, world.step, world.away_step), "equip": world.equip,
    "unequip": world.unequip, "switch": world.switch, "burn": world.burn,
    "open_quest": world.open_quest, "start_quest": world.start_quest, "fulfil": world.fulfil,
    "challenge": world.challenge, "interact": world.interact,
    "offer_alliance": world.offer_alliance, "dissolve": world.dissolve,
    "recruit": world.recruit, "ignore": world.ignore, "ambush": world.ambush_character,
    "take_victory": world.take_victory, "continue": world.continue_as,
    "battle": lambda s, a, ev: _maybe_away(s, a, ev, battle.initiate, battle.initiate),
    "separate": world.separate, "reunite": world.reunite,
    "join": battle.join, "assist": battle.assist,
    "attack": battle.attack, "signature": battle.signature, "super": battle.super_move,
    "play": battle.play, "flee": battle.flee, "end_attack": battle.end_attack,
    "truce": battle.truce, "defend": battle.defend, "enemy_turn": battle.enemy_turn,
    "counter_bid": battle.counter_bid, "mind_shift": battle.mind_shift,
    "hostage": battle.hostage, "ransom": battle.ransom, "propose_split": battle.propose_split,
    "accept_split": battle.accept_split, "cause_conflict": battle.cause_conflict,
    "face_conflict": lambda s, a, ev: battle.answer_conflict(s, a, ev, True),
    "ignore_conflict": lambda s, a, ev: battle.answer_conflict(s, a, ev, False),
    "use": effects.use, "choose": _choose,
}


def _maybe_away(s, action, events, main, away):
    """A step, search or battle of the main token, or (with "character") of a separated
    character of the player's party."""
    if action.get("character") is None:
        main(s, action, events)
    else:
        world.away_action(s, action, away, events)


def _handler(kind):
    if kind in HANDLERS:
        return HANDLERS[kind]
    return {
        "search": lambda s, a, ev: _maybe_away(s, a, ev, world.search, world.search),
        "end_turn": lambda s, a, ev: (world.my_turn(s, a), world.end_turn(s, ev)),
        "accept_alliance": lambda s, a, ev: world.answer_alliance(s, a, ev, True),
        "decline_alliance": lambda s, a, ev: world.answer_alliance(s, a, ev, False),
        "keep": lambda s, a, ev: world.rummage(s, a, ev, False),
        "rummage": lambda s, a, ev: world.rummage(s, a, ev, True),
        "keep_on_top": lambda s, a, ev: world.peek(s, a, ev, False),
        "to_bottom": lambda s, a, ev: world.peek(s, a, ev, True),
        "pay_escape": lambda s, a, ev: battle.escape_pay(s, a, ev, True),
        "stay": lambda s, a, ev: battle.escape_pay(s, a, ev, False),
        "reroll": lambda s, a, ev: battle.reroll(s, a, ev, True),
        "accept_roll": lambda s, a, ev: battle.reroll(s, a, ev, False),
        "give": world_give, "sacrifice": world_sacrifice, "distraction": world_distraction,
    }[kind]


def world_give(s, action, events):
    """Pass an item to another player: to a player in the battle you assist, from a battle to
    your assistant, or to a player on your location in Quest Mode (Character Assist)."""
    seat = action["seat"]
    p = s.players[seat]
    to = action.get("to")
    it = action.get("item")
    if to not in s.players or to == seat or s.players[to]["out"]:
        fail("no_such_player", "to must be another player, not %s." % shown(to))
    b_me, b_to = battle.of_seat(s, seat), battle.of_seat(s, to)
    if b_me is None:
        world.my_turn(s, action)
        ok = (b_to is None and core.cell_of(s, to) == core.cell_of(s, seat)) or (
            b_to is not None and p["assist"] == b_to["id"])
    else:
        battle._my_attack_turn(s, seat)
        ok = b_to is None and s.players[to]["assist"] == b_me["id"]
    if not ok:
        fail("cannot_give", "You can pass an item only to a player on your location, to a "
             "player in the battle you assist, or from battle to your assistant.")
    owner = world.equipped_by(p, it)
    if owner is None and it not in p["hand"]:
        fail("not_yours", "item must be an item of yours, not %s." % shown(it))
    if it not in s.cat.decks["bonus"] or core.item(s, it)["kind"] == "action":
        fail("not_an_item", "Only items are passed.")
    q = s.players[to]
    target_char = None
    if b_to is not None:
        for c in core.party_of(s, to):
            if world.slots_free(s, to, c) > 0:
                target_char = c
                break
        if target_char is None:
            fail("slots_full", "%s has no free item slot to equip it." % core.seat_words(s, to))
    boxes = p["boxes"].pop(it, None)
    if owner is not None:
        p["equipped"][owner].remove(it)
        world.cap_health(s, seat)
    else:
        p["hand"].remove(it)
    if target_char is not None:
        q["equipped"][target_char].append(it)
        if boxes is not None:
            q["boxes"][it] = boxes
    else:
        q["hand"].append(it)
    core.log(events, "item_given", seat=seat, to=to, item=it,
             text="%s gives %s to %s." % (core.seat_words(s, seat), core.name_of(s, it),
                                           core.seat_words(s, to)))
    world.trigger(s, seat, "gave_item", events)


def world_sacrifice(s, action, events):
    """BLOOD PACT (the Dark Ones, 2-4): "sacrifice your ally to gain +2 Health per each like
    faction character in your party"."""
    seat = action["seat"]
    p = world.my_turn(s, action)
    n = core.team_bonus(s, seat, "dark_ones")
    c = action.get("character")
    if not n:
        fail("no_blood_pact", "Blood Pact needs two or more of the Dark Ones in your party.")
    if c not in core.party_of(s, seat) or c == p["character"]:
        fail("bad_character", "character must be an ally in your party (not your primary "
             "character), not %s." % shown(c))
    for it in list(p["equipped"].get(c, [])):
        world.discard_item(s, seat, it, events, "its bearer was sacrificed")
    p["party"].remove(c)
    p["equipped"].pop(c, None)
    if p["active"] == c:
        p["active"] = p["character"]
    s.decks["bonus_discard"].append(c)
    got = core.gain_traits(p["traits"], 2 * n, core.max_health(s, p))
    core.log(events, "sacrificed", seat=seat, character=c, gained=got,
             text="%s sacrifices %s in a Blood Pact." % (core.seat_words(s, seat),
                                                         core.name_of(s, c)))


def world_distraction(s, action, events):
    """DISTRACTION (all five Fugitives): "spend 3 Traits to enable a tactic card of your
    choice"."""
    seat = action["seat"]
    p = s.players[seat]
    if not core.faction_bonus(s, seat, "fugitives"):
        fail("no_distraction", "Distraction is for all five of the Fugitives.")
    if battle.of_seat(s, seat) is not None:
        battle._my_attack_turn(s, seat)
    else:
        world.my_turn(s, action)
    t = battle.pick_dormant(s, seat, action.get("tactic"))
    pay = core.payment(p["traits"], {"any": 3}, action.get("pay"))
    core.spend(p["traits"], pay)
    p["tactics"][t] = True
    core.log(events, "tactic_enabled", seat=seat, tactic=t)


# The type of each action field (the rules check the values): ids are text.
_TEXT = ("card", "character", "item", "quest", "replace", "npc", "trait", "deck", "tactic",
         "knock_back", "break", "target")
_WHOLE = ("battle", "move", "bid")


# The keys _check_fields looks at ("type" and "seat" are checked before): the common action
# (a type and a seat) costs one set look-up a key.
_FIELD_CHECK = set(_TEXT + _WHOLE + ("with", "split", "cell", "swap", "to", "traits", "pay",
                                     "lose", "absorb"))


def _check_fields(kind, action):
    for key in action:
        if key in _FIELD_CHECK:
            break
    else:
        return          # nothing but the type and the seat (and the supply, checked later)
    for key in sorted(action):
        v = action[key]
        if key in _TEXT or (key == "to" and kind != "step"):
            if not isinstance(v, str):
                fail("bad_field", "%s must be an id (text), not %s." % (key, shown(v)))
        elif key in _WHOLE:
            if not core.is_int(v):
                fail("bad_field", "%s must be a whole number, not %s." % (key, shown(v)))
        elif key in ("with", "split"):
            if not isinstance(v, list) or len(v) > 10 or [x for x in v
                                                          if not isinstance(x, str)]:
                fail("bad_field", "%s must be a list of ids, not %s." % (key, shown(v)))
        elif key in ("cell", "swap", "to"):
            if not isinstance(v, list):
                fail("bad_field", "%s must be a list, not %s." % (key, shown(v)))
        elif key in ("traits", "pay", "lose"):
            core.check_traits(v, key)
        elif key == "absorb":
            if not isinstance(v, dict):
                fail("bad_absorb", "absorb must be an object of item: damage absorbed.")


def _supply(action):
    if "dice" not in action and "cards" not in action:
        return {"dice": [], "cards": []}
    dice = action.get("dice", [])
    if not isinstance(dice, list) or len(dice) > 20:
        fail("bad_dice", "dice must be a list of the dice the table read (1 to 6).")
    for d in dice:
        if not core.is_int(d) or d < 1 or d > 6:
            fail("bad_dice", "A die shows 1 to 6, not %s." % shown(d))
    got = action.get("cards", [])
    if not isinstance(got, list) or len(got) > 20:
        fail("bad_cards", "cards must be a list of the card ids the table read.")
    for c in got:
        if not isinstance(c, str):
            fail("bad_cards", "cards must be card ids, not %s." % shown(c))
    return {"dice": list(dice), "cards": list(got)}


def _apply(s, action):
    kind = check_action_shape(action, ACTION_FIELDS, "Fairytale Games")
    if s.status != "ongoing":
        fail("game_over", "The game is over.")
    seat = action.get("seat")
    if not isinstance(seat, str) or seat not in s.players:
        fail("bad_seat", "seat must be a seat of the game (p1 to p%d), not %s." % (
            len(s.seats), shown(seat)))
    if s.players[seat]["out"]:
        fail("out", "Player %s is out of the Battle Royale." % seat[1:])
    if kind != "choose" and s.phase == "choose":
        fail("choose_first", "Everybody chooses a character first.")
    _check_fields(kind, action)
    s.supply = _supply(action)
    rng = s.rng
    events = []
    try:
        _handler(kind)(s, action, events)
    finally:
        left = s.supply
        s.supply = None
    if left["dice"] or left["cards"]:
        fail("unused_chance", "The action supplied %s the rules did not use." % (
            "dice" if left["dice"] else "cards"))
    world.phase_after(s, seat, kind)
    if _ENDING.intersection([e["type"] for e in events]):
        world.check_end(s, events)
    for _ in range(500):
        # Nobody can act (everyone left is waiting to enter, say): the day passes.
        if s.status != "ongoing" or s.phase != "play" or s.cur is not None or \
                s.clock is not None or s.battles or s.pending or actors(s):
            break
        world.begin_day(s, events)
    if s.rng != rng or action.get("dice") or action.get("cards") or _revealing(events):
        events.append({"type": "chance_taken"})
    return events


# What may end the game: deaths, kills, players entering or leaving.
_ENDING = set(["killed", "enemy_killed", "eliminated", "wave_enters", "continues_as",
               "moved", "left_battle", "battle_ends", "alliance_formed", "alliance_left"])
_REVEALS = ("day_begins", "discovered", "bonus_drawn", "character_drawn", "battle_begins",
            "flipped", "npc_appears", "quest_taken", "epic_item", "victory_card",
            "joins_battle", "chosen", "rummaged", "peeked", "stolen", "continues_as",
            "wave_enters", "hunter_revealed", "landmark_bonus", "attack_turn_ends",
            "extra_turn", "defended", "status")


_REVEALING = set(_REVEALS)


def _revealing(events):
    for e in events:
        if e["type"] in _REVEALING:
            return True
    return False


def validate(state, action):
    """The problem with `action` now (an IllegalAction), or None. Never raises."""
    try:
        _apply(state.copy(), action)
    except IllegalAction as e:
        return e
    return None


def apply(state, action):
    """Apply an action; IllegalAction leaves the state unchanged.

    Every handler checks everything before it changes anything, so an action is applied in
    place. The one refusal that can come halfway is a supplied die or card that the rules do
    not take (a card read that is not in the deck drawn from, dice left over): an action with
    "dice" or "cards" is played on a copy, which the state then takes over."""
    supplied = isinstance(action, dict) and (action.get("dice") or action.get("cards"))
    trial = state.copy() if supplied else state
    events = _apply(trial, action)
    if supplied:
        for key in core.DYNAMIC:
            setattr(state, key, getattr(trial, key))
    return events


def actor(state, action):
    """The seat that takes `action`: every action names it ("seat")."""
    if isinstance(action, dict) and action.get("seat") in state.players:
        return action["seat"]
    who = actors(state)
    return who[0] if who else None


def actors(state):
    """The seats that may act now, in seat order ([] once the game is over): choosers, the
    Sundial flipping the day's event, players with a decision waiting, the player whose turn
    it is, and every seat a battle waits for (several battles run at once)."""
    s = state
    if s.status != "ongoing":
        return []
    out = set()
    if s.phase == "choose":
        out = set([q for q in s.seats if s.players[q]["character"] is None])
    else:
        # As legal_actions offers them: a seat's first decision waits for it (a negotiation
        # holds the decisions after it too), and only the seats with a move are actors.
        done = set()
        for d in s.pending:
            if d["kind"] == "negotiate":
                out.update(battle.negotiators(s, d))
                done.update(d["seats"])
            elif d["kind"] == "conflict":
                out.update([q for q in d["seats"] if q not in done and
                            q not in d["faced"] and q not in d["ignored"]])
                done.update(d["seats"])
            elif d["seat"] not in done:
                out.add(d["seat"])
                done.add(d["seat"])
        if s.clock == "flip":
            out.add(s.sundial)
        cs = world.current_seat(s)
        if cs is not None and not world.pending_for(s, cs):
            out.add(cs)
        for b in s.battles:
            out.add(battle.whose_move(s, b))
    return [q for q in s.seats if q in out and not s.players[q]["out"]]


def undo_blocker(action, events):
    """Why this action cannot be taken back (a card drawn, a die rolled), or None."""
    for e in events:
        if e["type"] == "chance_taken":
            return "it drew a card or rolled a die"
    return None


# ---------------------------------------------------------------- views and records

def _player_form(s, q, full):
    p = s.players[q]
    out = {"seat": q, "character": p["character"], "party": list(p["party"]),
           "active": p["active"], "traits": dict(p["traits"]),
           "health": core.health(p["traits"]), "max_health": core.max_health(s, p),
           "reputation": p["reputation"],
           "equipped": dict([(c, list(p["equipped"][c])) for c in p["equipped"]]),
           "boxes": dict(p["boxes"]), "quests": list(p["quests"]),
           "progress": dict([(x, dict(p["progress"][x])) for x in p["progress"]]),
           "tactics": dict(p["tactics"]), "victory": list(p["victory"]),
           "kills": dict(p["kills"]), "poison": p["poison"],
           "cell": core.xy(core.cell_of(s, q)), "ally": p["ally"], "battle": p["battle"],
           "out": p["out"], "entered": p["entered"], "tokens": dict(p["tokens"]),
           "hand_size": len(p["hand"]), "protect": [dict(x) for x in p["protect"]],
           "assist": p["assist"], "name": core.name_of(s, p["active"]),
           "away": _away_form(s, p)}
    if full:
        out["hand"] = list(p["hand"])
    return out


def _away_form(s, p):
    """The separated characters' tokens (while one fights, it stands in for the main token:
    "stand_in" names it and the others show where the main token waits)."""
    out = {}
    frames = p["away"]
    if p["stand_in"]:
        frames = {p["stand_in"]["character"]: {"cell": p["cell"], "traits": p["traits"],
                                                "steps": p["stand_in"]["steps"]}}
    for c in sorted(frames):
        a = frames[c]
        out[c] = {"cell": core.xy(a["cell"]), "traits": dict(a["traits"]),
                  "health": core.health(a["traits"]), "fighting": bool(p["stand_in"])}
    return out


def _battle_form(s, b, seat):
    fighters = {}
    for fid in sorted(b["fighters"]):
        f = b["fighters"][fid]
        if battle.is_auto(f):
            fighters[fid] = {"enemy": f["enemy"], "kind": f["auto"], "health": f["health"],
                             "max_health": f["max"], "poison": f["poison"], "out": f["out"],
                             "name": core.name_of(s, f["enemy"])}
        else:
            fighters[fid] = {"seat": f["seat"], "character": f["character"],
                             "hand_size": len(f["hand"]), "out": f["out"],
                             "exposed": f["exposed"], "stunned": f["stun"] or f["no_attack"]}
            if seat == f["seat"] or seat == "referee":
                fighters[fid]["hand"] = list(f["hand"])
    a = b["await"]
    return {"id": b["id"], "cell": core.xy(b["cell"]), "kind": b["kind"], "owner": b["owner"],
            "fighters": fighters, "order": [dict(e) for e in b["order"]], "at": b["at"],
            "round": b["round"], "await": dict(a) if a is not None else None,
            "waiting_for": battle.whose_move(s, b), "quest": b["quest"]}


def _common(s, seat):
    return {"game": NAME, "options": dict(s.options), "seats": list(s.seats),
            "status": s.status, "winner": s.winner, "winners": list(s.winners),
            "end_reason": s.end_reason, "epilogue": s.epilogue, "phase": s.phase,
            "day": s.day, "clock": s.clock, "event": s.event, "event_hold": s.event_hold,
            "sundial": s.sundial, "order": list(s.order), "turn": world.current_seat(s),
            "turn_phase": s.turn["phase"] if s.turn is not None else None,
            "steps": [s.turn["steps"], s.turn["allow"]] if s.turn is not None else None,
            "map": [{"cell": core.xy(i), "location": s.cells[i],
                     "name": core.name_of(s, s.cells[i]), "searched": s.searched[i],
                     "flipped": s.flipped[i]} for i in range(core.NCELLS)
                    if s.cells[i] is not None],
            "npcs": [{"id": n["id"], "cell": core.xy(n["cell"])} for n in s.npcs],
            "allies": dict([(a, {"members": list(s.allies[a]["members"]),
                                 "cell": core.xy(s.allies[a]["cell"])}) for a in s.allies]),
            "landmarks": s.landmarks, "final_deaths": s.final_deaths, "wave": s.wave,
            "actors": actors(s)}


FACE_UP = ("battle_discard", "bonus_discard", "end", "event_discard", "quest_discard")


def view(state, seat=None):
    """What `seat` may know (None: a spectator): the face-up table, each player's board and
    items; its own quest hand, battle hand and decisions; deck sizes, never their order."""
    s = state
    out = _common(s, seat)
    out["seat"] = seat
    out["players"] = dict([(q, _player_form(s, q, q == seat)) for q in s.seats])
    out["decks"] = dict([(d, list(s.decks[d]) if d in FACE_UP else len(s.decks[d]))
                         for d in world.DECK_NAMES])
    out["battles"] = [_battle_form(s, b, seat) for b in s.battles]
    out["hunters"] = [_hunter_form(s, h) for h in s.hunters if h["state"] != "hidden"]
    out["hidden_hunters"] = len([h for h in s.hunters if h["state"] == "hidden"])
    out["pending"] = [_pending_form(s, d, seat) for d in s.pending]
    return out


def _hunter_form(s, h):
    return {"id": h["id"], "state": h["state"], "cell": core.xy(h["cell"]) if h["cell"] >= 0
            else None, "health": h["health"], "name": core.name_of(s, h["id"])}


def _pending_form(s, d, seat):
    seats_ = d.get("seats") or [d["seat"]]
    if seat in seats_ or seat == "referee":
        out = dict(d)
        if "seats" in d:
            out["seats"] = list(d["seats"])
        out["words"] = world.decision_words(s, d)
        return out
    return {"seat": d["seat"], "kind": d["kind"]}


def secrets(state, seat=None):
    """The card ids that must not appear in view(state, seat): the decks face down, the other
    players' quest and battle hands and decisions, the hunters still face down."""
    s = state
    out = set()
    for d in world.DECK_NAMES:
        if d not in FACE_UP:
            out.update(s.decks[d])
    for q in s.seats:
        if q != seat:
            out.update(s.players[q]["hand"])
    for b in s.battles:
        for fid in b["fighters"]:
            f = b["fighters"][fid]
            if not battle.is_auto(f) and f["seat"] != seat:
                out.update(f["hand"])
    for d in s.pending:
        if d["seat"] != seat and "card" in d:
            out.add(d["card"])
    for h in s.hunters:
        if h["state"] == "hidden":
            out.add(h["id"])
    for d in s.pending:
        if d["seat"] == seat and "card" in d:
            out.discard(d["card"])  # a card the seat is shown (a peek at a deck's top)
    return out


def to_dict(state):
    s = state
    out = {"schema": canon.SCHEMA_VERSION, "game": NAME, "options": dict(s.options),
           "seed": s.seed, "cards": canon.loads(canon.dumps(s.extra_cards))
           if s.extra_cards is not None else None, "seats": list(s.seats)}
    for key in core.DYNAMIC:
        out[key] = core.clone(getattr(s, key))
    return out


def from_dict(data):
    """Rebuild a state from to_dict(); ScenarioError if it is not one."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ScenarioError("state", "is not a saved fairytale (Fairytale Games) state")
    if data.get("schema") != canon.SCHEMA_VERSION:
        raise ScenarioError("state.schema", "unsupported version %s" % shown(data.get("schema")))
    try:
        s = core.FairytaleState()
        s.options = dict(data["options"])
        s.seed = data["seed"]
        s.extra_cards = data["cards"]
        s.cat = cards.load_catalog(data["cards"])
        s.seats = list(data["seats"])
        s.supply = None
        for key in core.DYNAMIC:
            setattr(s, key, core.clone(data[key]))
        for q in s.seats:
            if s.players[q]["seat"] != q:
                raise ScenarioError("state.players", "%s is damaged" % shown(q))
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ScenarioError("state", "is incomplete or damaged (%s)" % type(e).__name__)
    return s


def result(state):
    """The scenario runner's output: everything, hidden cards included (the referee's record)."""
    s = state
    out = _common(s, None)
    out["players"] = dict([(q, _player_form(s, q, True)) for q in s.seats])
    out["decks"] = dict([(d, list(s.decks[d])) for d in world.DECK_NAMES])
    out["battles"] = [_battle_form(s, b, "referee") for b in s.battles]
    out["hunters"] = [_hunter_form(s, h) for h in s.hunters]
    out["pending"] = [_pending_form(s, d, "referee") for d in s.pending]
    return out


from shared_rules.fairytale.choices import legal_actions  # noqa: E402,F401
from shared_rules.fairytale.bot import bot_digest, evaluate, imagine  # noqa: E402,F401
from shared_rules.fairytale.hidden import determinize  # noqa: E402,F401
