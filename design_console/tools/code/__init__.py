"""Tools that turn designs into code and pages into designs."""
