"""Loopback fakes of the model services the recorder talks to, speaking each service's wire format.

`bedrock` is bedrock-runtime (Converse JSON, ConverseStream `application/vnd.amazon.eventstream`
frames, SigV4 or bearer auth checked for real, the service's error shapes); `openai` the chat
completions API (SSE chunks); `anthropic` the messages API (SSE events). Each binds 127.0.0.1 on a
free port, answers from a queue of scripted replies, and logs every request it received. The
clients under test are the real ones (boto3, openai, anthropic), pointed at the fake the way a
user points them at an endpoint.
"""
