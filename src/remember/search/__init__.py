"""Search: embedders, fusion of keyword and vector results, the filter compiler."""
