def test_jobs(project):
    return []
