"""Storybook Battles on the table: the adapter (host/table/contract.py, TableGame).

It lights the grid, draws it in the terminal, says how bots' moves look on the table
and which moves a seat button makes; the interpreter is host/games/storybook/interpreter.py,
the virtual hands host/virtual/hands.py.
"""

from host import lights
from host.table.contract import TableGame
from host.games.storybook.interpreter import StorybookTable
from host.games.storybook.hands import StorybookHands
from host.games.storybook.scenes import grid_scenes, slide_targets
from host.games.storybook.terminal import render
from host.games.storybook.web import StorybookFace
from shared_rules import catalog, storybook


class StorybookGame(TableGame):
    """What the session needs to play Storybook Battles on the table."""

    name = "storybook"
    options = {"mode": "physical"}
    board_words = "the Storybook board (7 x 7 cells, [0, 0] to [6, 6])"
    button_actions = ("draw", "end_turn", "choose_plot_twist")
    buttons = (("draw", "Draw a card"), ("end_turn", "End turn"),
               ("twist", "Plot twist"))
    interpreter = StorybookTable
    face_class = StorybookFace

    def board_cells(self):
        cols, rows = storybook.new_game({}, 0).grid
        return frozenset((c, r) for c in range(cols) for r in range(rows))

    def tagged_items(self):
        """Every Storybook card."""
        return ["storybook:" + c["id"] for c in catalog.load("storybook_cards.json")["cards"]]

    def scenes(self, state, table, cells, events=(), bot_request=None):
        """The scene of every cell: hints for a play, the last action's captures, the bot's
        move chased, the mismatches blinking."""
        s = state
        hints = ()
        if not table.mismatches and s.phase == "play" and s.ap >= 3 and s.hands[s.turn]:
            hints = [c for c in cells
                     if c not in s.board and any(n in s.board for n in storybook.neighbours(c))]
        bot_cells = []
        if bot_request is not None and "cell" in bot_request:
            bot_cells.append(tuple(bot_request["cell"]))
        scenes = grid_scenes(s, events, table.mismatches, hints, bot_cells)
        if table.lifting is not None:
            # A card in its player's hand for a slide: where it may go glows.
            for target in slide_targets(s, table.lifting[0]):
                scenes[target] = lights.all_edges(lights.pulse(lights.HINT_SLIDE, 1000, 40))
        return scenes

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        return render(self.face, state, scene_map, mismatches, colour, table)

    def status_strip(self, match):
        scores = super().status_strip(match)[0]
        return scores, match.state.target, match.state.turn.split("_")[0]

    def turns(self, match):
        return match.state.turn_number

    def normal_bot_action(self, action):
        """A card goes down facing its controller: a bot's "facing" is not the table's to say."""
        if action["type"] in ("play", "hide"):
            return {k: v for k, v in action.items() if k != "facing"}
        return action

    def is_button_action(self, action):
        """Draw, end turn, the plot-twist choice, and a twist that names no cell."""
        return action["type"] in self.button_actions or (
            action["type"] == "plot_twist" and "cell" not in action)

    def hands(self, vtable, layout, registry):
        return StorybookHands(vtable, layout, registry)
