"""The approval rule in one room: the idempotent store and the flow from draft to decision."""
