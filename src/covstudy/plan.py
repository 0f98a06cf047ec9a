PlanResult = plan = None
