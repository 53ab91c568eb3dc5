"""Model packages with their cards (`arcwise package`, `arcwise models`): what a model is,
what it was trained on under which licence, and how it scores; the wheel itself is
`arcwise.models.packages`'."""
