"""What Lambda's runtime tells a function: the address of its Extensions API, where the
redirect's extension registers (unset outside Lambda: clicks are then sent inline)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, text


@dataclass(frozen=True)
class LambdaRuntimeSettings(EnvironmentModel):
    extensions_api: str = text("AWS_LAMBDA_RUNTIME_API")
