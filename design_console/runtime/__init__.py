"""What every local process shares at run time: private dirs and files, the instance lock, port adverts, logging,
starting designd detached, the control-socket client, and the plugin setup text."""
