"""Amazon Data Firehose: the click lake's delivery stream."""
