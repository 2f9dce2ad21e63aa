"""The League Manager: registrations, the round-robin schedule, results and standings."""
