"""ROC and precision-recall confidence bands: the band doors and the band study."""
