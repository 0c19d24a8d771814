"""`make lint`'s size check names every module over 400 lines and every handler over 150."""

from pathlib import Path

from tools.developers.module_sizes import oversized


def write(root: Path, relative: str, lines: int) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n" * lines)


def test_modules_over_400_lines_and_handlers_over_150_are_named_with_their_size(tmp_path):
    write(tmp_path, "layers/common/shortlink/fits.py", 400)
    write(tmp_path, "layers/common/shortlink/links/grown.py", 401)
    write(tmp_path, "functions/create/app.py", 150)
    write(tmp_path, "functions/manage/app.py", 151)
    write(tmp_path, "functions/manage/helpers.py", 300)  # not the handler: a module's limit
    write(tmp_path, "tools/developers/bench/long.py", 520)
    write(tmp_path, "tests/integration/test_long.py", 900)  # tests are not checked
    assert oversized(tmp_path) == [
        (Path("layers/common/shortlink/links/grown.py"), 401, 400),
        (Path("functions/manage/app.py"), 151, 150),
        (Path("tools/developers/bench/long.py"), 520, 400),
    ]
