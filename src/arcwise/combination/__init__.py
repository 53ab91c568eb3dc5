"""Combining parsers (2011 paper, §5): stacking (`stacking`) and voting (`voting`)."""
