"""``design-console-remote``: serve the hosted MCP service with uvicorn, configured from the environment."""

from __future__ import annotations

import logging
import sys

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from design_console.bridge_frames import MAX_FRAME_BYTES
from design_console.config import load_remote_config
from design_console.errors import DesignError
from design_console.runtime.logs import setup_logging
from design_console.runtime.usage import REMOTE_SERVER, answer_help_or_version


def main() -> None:
    """Start the service; a bad setting is reported with the variable to fix, and the exit status is 2."""
    answer_help_or_version("design-console-remote", REMOTE_SERVER, sys.argv[1:])
    try:
        config = load_remote_config()
    except DesignError as err:
        print(err, file=sys.stderr)
        sys.exit(2)
    from design_console.remote.app import asgi_app
    from design_console.remote.metrics import install_request_log
    from design_console.remote.serving import (
        DrainingServer,
        SlowClientGuard,
        backlog_for,
        connection_cap,
        guarded_h11,
        install_log_filters,
        raise_open_files,
    )

    # Upstream tokens never reach a log line; the deployer's secrets are redacted should one slip into a message.
    setup_logging(config.base, "design-console-remote", [config.api_key], to_file=False)
    install_log_filters()
    install_request_log(logging.getLogger().level)
    open_files = raise_open_files()
    guard = SlowClientGuard(
        connection_cap(open_files, config.max_connections), config.header_timeout, config.body_timeout
    )
    if config.missing_oauth:
        logging.getLogger("design_console.remote").warning(
            "OAuth is off (%s not set): MCP requests use DESIGN_ACCESS_TOKEN", ", ".join(config.missing_oauth)
        )
    app, service = asgi_app(config)
    settings = uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        log_config=None,
        proxy_headers=True,
        # The client address every per-client limit counts is the one these proxies name (README "Remote Mode").
        forwarded_allow_ips=config.forwarded_allow_ips,
        http=guarded_h11(guard),
        backlog=backlog_for(open_files),
        # Screenshots and image fills come back from the plugin in one frame, as over the local bridge.
        ws_max_size=MAX_FRAME_BYTES,
        # A plugin lost without a close is noticed by its missing pong, and its pairing announced as ended.
        ws_ping_interval=config.relay_ping_seconds,
        ws_ping_timeout=config.relay_ping_timeout,
        # Like designd's bridge, the relay compresses nothing: deflating each small command and reply costs both ends
        # CPU on every call (docs/remote/operations.md).
        ws_per_message_deflate=False,
        server_header=False,
        # SIGTERM: stop accepting, close each relay socket once idle (1012, the plugin comes back at once, to another
        # instance, where new calls go), and give calls in flight this long to finish.
        timeout_graceful_shutdown=config.shutdown_seconds,
    )
    server = DrainingServer(settings, service.relays.drain)
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


if __name__ == "__main__":
    main()
