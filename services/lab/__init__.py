"""Tools that use the product and that nothing in the product imports: evals, benches, soak."""
