"""What every game engine shares: geometry, seeded randomness, the engine protocol.

Pure Python, standard library only: nothing here may import Django or Channels.
"""
