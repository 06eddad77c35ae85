"""Provider SDK and protocol message formats: Anthropic Messages, OpenAI Chat / Responses, Cohere
Chat v2, Google Gen AI contents, Model Context Protocol sessions."""
