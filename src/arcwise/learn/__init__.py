"""Learning machinery shared by every model: feature hashing, the averaged perceptron, the neural encoder pieces."""
