"""Comment threads and Dev Mode annotations."""
