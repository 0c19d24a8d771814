"""DNS, read through dnspython."""
