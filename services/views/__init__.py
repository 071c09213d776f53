"""UI-free view shaping for the console: pydantic models the pages only have to draw."""
