"""mini-swe-agent runs as its SWE-bench runner saves them (cli_swe_mini.py): killed
commands, the submission message, the instance id and runs ended by an exception."""

from __future__ import annotations

from typing import Any

import cli_swe
import cli_swe_mini as mini

from agent_reliability_harness.adapters import to_canonical


def convert(value: Any) -> dict[str, Any]:
    (trace,) = to_canonical(value, "auto", "run")
    assert trace["source"] == "swe-agent"
    return dict(trace)


def calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in trace["steps"] if s["type"] == "tool_call"]


def test_v1_timeout_is_the_output_of_the_killed_command() -> None:
    trace = convert(mini.v1_swebench())
    messages = mini.v1_swebench()["messages"]
    got = [(c["arguments"]["command"], c.get("output"), c.get("status")) for c in calls(trace)]
    assert got == [
        ("pytest tests/test_separable.py", messages[3]["content"], "error"),
        ("ls astropy/modeling", messages[5]["content"], "ok"),
        ("cat missing.py", messages[7]["content"], "error"),
        (mini.SUBMIT, mini.PATCH, "ok"),
    ]
    assert calls(trace)[0]["error"] == "timed out: mini-swe-agent killed the command"
    assert trace["metadata"]["adapter"]["notes"] == []


def test_v1_truncated_timeout_of_the_benchmark_template_is_an_observation() -> None:
    value = mini.v1_limits()
    trace = convert(value)
    first, second = calls(trace)
    assert first["status"] == "error" and "timed out" in first["error"]
    assert first["output"].startswith("The last command <command>pytest</command>")
    assert second["output"].startswith("<returncode>0</returncode>")
    assert [i["text"] for i in trace["inputs"]] == [value["messages"][0]["content"], mini.ISSUE]


def test_a_user_message_mentioning_a_timeout_stays_an_input() -> None:
    value = mini.v1_swebench()
    loose = "The last command timed out and has been killed, I think. Try again."
    value["messages"][3] = {"role": "user", "content": loose}
    trace = convert(value)
    assert loose in [i["text"] for i in trace["inputs"]]


def test_v1_submission_is_the_output_of_the_submit_command() -> None:
    trace = convert(mini.v1_swebench())
    assert calls(trace)[-1]["output"] == trace["metadata"]["submission"] == mini.PATCH
    assert mini.PATCH not in [i["text"] for i in trace["inputs"]]


def test_v1_empty_submission_is_the_submit_commands_empty_output() -> None:
    trace = convert(cli_swe.mini_textbased())
    last = calls(trace)[-1]
    assert last["arguments"] == {"command": "echo MINI_SWE_AGENT_FINAL_OUTPUT"}
    assert (last["output"], last["status"]) == ("", "ok")


def test_v1_empty_exit_message_of_a_stopped_run_is_bookkeeping() -> None:
    trace = convert(mini.v1_limits())
    record = trace["metadata"]["adapter"]
    assert record["skipped"] == {
        "empty final message of a run (mini-swe-agent 1.x's exit message, with no text)": 1
    }
    assert record["notes"] == []


def test_instance_id_next_to_the_messages_is_the_task_id() -> None:
    assert convert(mini.v1_swebench())["task_id"] == "astropy__astropy-12907"
    assert convert(mini.v2_exception())["task_id"] == "pvlib__pvlib-python-1072"
    inside = mini.v1_swebench()
    inside["info"]["instance_id"] = inside.pop("instance_id")
    assert convert(inside)["task_id"] == "astropy__astropy-12907"
    both = mini.v1_swebench()
    both["info"]["instance_id"] = "other__other-1"
    trace = convert(both)
    assert trace["task_id"] == "astropy__astropy-12907"
    assert [n["at"] for n in trace["metadata"]["adapter"]["notes"]] == ["info.instance_id"]


def test_v2_exception_exit_is_kept_and_noted() -> None:
    trace = convert(mini.v2_exception())
    meta = trace["metadata"]
    assert meta["exit_status"] == "InternalServerError"
    assert meta["exception_str"] == mini.EXCEPTION
    assert meta["traceback"] == mini.TRACEBACK
    (note,) = meta["adapter"]["notes"]
    assert note["at"] == "messages[4]" and note["value"] == mini.EXCEPTION
    assert "InternalServerError" in note["issue"]
    assert [c.get("status") for c in calls(trace)] == ["ok"]


def test_v2_exception_while_a_command_ran_fails_that_command() -> None:
    value = mini.v2_exception()
    del value["messages"][3]  # the exception came before the observation
    trace = convert(value)
    (call,) = calls(trace)
    assert (call["output"], call["status"]) == (mini.EXCEPTION, "error")
    assert call["error"] == f"InternalServerError: {mini.EXCEPTION}"


def test_v2_exit_text_other_than_the_exception_is_in_metadata() -> None:
    value = mini.v2_exception()
    value["messages"][4]["content"] = "the model provider failed"
    meta = convert(value)["metadata"]
    assert meta["exit_message"] == "the model provider failed"


def test_v1_exception_traceback_is_kept_and_noted() -> None:
    value = mini.v1_limits()
    value["info"].update(exit_status="RuntimeError", traceback=mini.TRACEBACK)
    value["messages"][-1]["content"] = "boom"
    trace = convert(value)
    assert trace["metadata"]["traceback"] == mini.TRACEBACK
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert note["at"] == "info" and "RuntimeError" in note["issue"]


def test_swe_agent_blank_thought_is_no_model_response() -> None:
    value = cli_swe.function_calling()
    value["trajectory"][1]["thought"] = "\n"
    value["history"][4]["thought"] = value["history"][4]["content"] = "\n"
    trace = convert(value)
    assert all(s.get("text") != "\n" for s in trace["steps"])
    assert len(calls(trace)) == 4 and trace["metadata"]["adapter"]["notes"] == []
    alone = cli_swe.history_only()
    alone["history"][2]["thought"] = alone["history"][2]["content"] = "\n"
    texts = [s["text"] for s in convert(alone)["steps"] if s["type"] == "model_response"]
    assert texts == ["Submit."]
