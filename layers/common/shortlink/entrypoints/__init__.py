"""Route modules the functions include in their resolvers: above the composition root, which
builds what they call."""
