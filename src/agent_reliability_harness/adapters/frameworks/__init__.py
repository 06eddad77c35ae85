"""Agent framework formats: AutoGen, LangChain / LangGraph / LangSmith, smolagents, Pydantic AI,
Letta, browser-use, OpenHands."""
