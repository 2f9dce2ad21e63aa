"""The Referee: runs matches between players under deadlines and reports the results."""
