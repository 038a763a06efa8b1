"""A resume goes on from the journal check's own replay (host/journal.py, Journal.resume):
the game is replayed once, not twice, and only while the journal still holds what was
checked; written since, it is replayed from the file again. A damaged journal is refused by
the check as before (tests/host/test_journal_damage.py)."""

from host import journal as journals
from host.journal import Journal
from shared_rules import bots, canon, storybook
from test_journal_damage import play


def state_text(match):
    return canon.dumps(match.engine.to_dict(match.state))


def test_a_resume_goes_on_from_the_checks_replay(tmp_path):
    path = str(tmp_path / "journal.db")
    journal = Journal(path)
    game_id, played = play(journal, 7, 30)
    journal.close()
    report = journals.check(path, replay_finished=False)
    journal = Journal(path, report)
    try:
        match, session = journal.resume(game_id, report)
        # The very game the check replayed (no second replay), and the game that was played.
        assert match is report.replayed[game_id][0]
        assert state_text(match) == state_text(played) and len(match.actions) == 30
        assert session == {"bots": {"hero": "greedy"}, "seed": 7}
        loaded, loaded_session = journal.load(game_id)
        assert state_text(loaded) == state_text(match) and loaded_session == session
    finally:
        journal.close()


def test_a_journal_written_since_its_check_is_replayed_from_the_file(tmp_path):
    path = str(tmp_path / "journal.db")
    journal = Journal(path)
    game_id, played = play(journal, 7, 30)
    report = journals.check(path, replay_finished=False)
    # One more action after the check (another writer): the check's replay is one behind.
    action = bots.choose("greedy", storybook, played.state, played.state.turn, 7)
    played.apply(action)
    journal.append(game_id, 30, action, played)
    journal.close()
    journal = Journal(path, report)
    try:
        match, _session = journal.resume(game_id, report)
        assert match is not report.replayed[game_id][0]
        assert len(match.actions) == 31 and state_text(match) == state_text(played)
    finally:
        journal.close()
