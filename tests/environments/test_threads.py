"""``set_threads`` (``uno_env.integrations.threads``): the one thread setting of every
training recipe."""
import pytest

from conftest import NEEDS

torch = pytest.importorskip("torch", reason=NEEDS["rl"])

from uno_env.integrations.threads import TORCH_THREADS, set_threads  # noqa: E402


def test_set_threads_puts_torch_on_one_thread_and_says_so():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert set_threads() == {"torch": TORCH_THREADS} == {"torch": 1}
        assert torch.get_num_threads() == 1
        assert set_threads(None) == {"torch": 1}       # None leaves torch's setting
        assert set_threads(2) == {"torch": 2}
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_set_threads_refuses_what_is_not_a_thread_count(bad):
    with pytest.raises(ValueError, match="torch_threads must be None or an integer"):
        set_threads(bad)


def test_the_sb3_module_and_the_readme_use_the_same_helper():
    from support import ROOT
    from uno_env.integrations import sb3

    assert sb3.set_threads is set_threads
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = readme[readme.index("**Training one seat**"):]
    assert "\nset_threads()" in snippet[:snippet.index("model.learn(")]
